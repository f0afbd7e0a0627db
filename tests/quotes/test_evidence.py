"""Evidence: the document lines and places a conversation's tool results showed, even when a
result was cut short."""

from __future__ import annotations

import json
from typing import Any

from bot.agent.quotes.evidence import Evidence, EvidenceLine
from tools.cutting import cut_result
from tools.extract.places import Place


def lines_of(evidence: Evidence, path: str) -> list[EvidenceLine]:
    return [line for run in evidence.documents[path].runs() for line in run]


def with_content(messages: list[Any], path: str, content: str) -> list[Any]:
    """`messages` with the read_file result of `path` replaced by `content`."""
    return [
        {**m, "content": content}
        if m.get("role") == "tool" and f'"path": "{path}"' in m["content"]
        else m
        for m in messages
    ]


def read_result(messages: list[Any], path: str) -> str:
    [content] = [
        m["content"]
        for m in messages
        if m.get("role") == "tool" and f'"path": "{path}"' in m["content"]
    ]
    return str(content)


class TestPages:
    def test_every_page_read_by_path_with_places(self, read_all: list[Any]) -> None:
        evidence = Evidence.from_messages(read_all)
        assert list(evidence.documents) == [
            "правила.pdf",
            "финансы/бюджет.xlsx",
            "стратегия.pptx",
            "hr/справочник.md",
            "hr/премии.docx",
            "памятка.txt",
        ]
        rules = lines_of(evidence, "правила.pdf")
        assert [(line.number, line.place) for line in rules][:4] == [
            (2, Place("page", 1)),
            (3, Place("page", 1)),
            (4, Place("page", 1)),
            (6, Place("page", 2)),
        ]
        assert rules[-1] == EvidenceLine(
            10, "Командировочные расходы возмещаются по авансовому отчёту.", Place("page", 3)
        )

    def test_marker_lines_are_places_not_text(self, read_all: list[Any]) -> None:
        evidence = Evidence.from_messages(read_all)
        [run] = evidence.documents["финансы/бюджет.xlsx"].runs()
        assert [line.number for line in run] == [2, 3, 4, 6, 7, 8]
        assert run[3].place == Place("sheet", name="Штат")

    def test_a_page_from_the_middle_takes_the_place_read_file_named(self) -> None:
        page = {
            "path": "отчёт.pdf",
            "place": "page 7",
            "document": "<<<B>>>\n40| середина страницы\n41| --- page 8 ---\n42| дальше\n<<<E>>>",
        }
        evidence = Evidence()
        evidence.add_result("read_file", json.dumps(page, ensure_ascii=False))
        [run] = evidence.documents["отчёт.pdf"].runs()
        assert [(line.number, line.place) for line in run] == [
            (40, Place("page", 7)),
            (42, Place("page", 8)),
        ]

    def test_a_result_cut_mid_text_still_gives_its_head(self, read_all: list[Any]) -> None:
        content = read_result(read_all, "правила.pdf")
        cut = content[: content.index("Заявление") + 5]
        evidence = Evidence.from_messages(with_content(read_all, "правила.pdf", cut))
        rules = lines_of(evidence, "правила.pdf")
        assert rules[-1].number == 7
        assert rules[-1].text == "Заявл"
        assert rules[-2].place == Place("page", 2)

    def test_a_result_cut_to_fit_the_context(self, read_all: list[Any]) -> None:
        content = read_result(read_all, "правила.pdf")
        shorter = cut_result(content, len(content) - 150)
        evidence = Evidence.from_messages(with_content(read_all, "правила.pdf", shorter))
        numbers = [line.number for line in lines_of(evidence, "правила.pdf")]
        assert numbers[0] == 2
        assert numbers[-1] < 10

    def test_a_head_of_unknown_shape(self) -> None:
        partial = json.dumps(
            {
                "partial": '{"path": "a.txt", "place": "page 2", "document": "<<<B>>>\\n5| пя',
                "cut": "cut",
            }
        )
        evidence = Evidence()
        evidence.add_result("", partial)
        assert lines_of(evidence, "a.txt") == [EvidenceLine(5, "пя", Place("page", 2))]

    def test_errors_listings_and_junk_show_nothing(self) -> None:
        evidence = Evidence.from_messages(
            [
                {"role": "tool", "tool_call_id": "x", "content": '{"error": "no", "hint": "h"}'},
                {"role": "tool", "tool_call_id": "y", "content": '{"entries": [{"name": "a"}]}'},
                {"role": "tool", "tool_call_id": "z", "content": "not json at all"},
                {"role": "tool", "tool_call_id": "w", "content": None},
                {"role": "tool", "tool_call_id": "v", "content": "[1, 2]"},
            ]
        )
        assert evidence.documents == {}

    def test_content_given_as_parts(self) -> None:
        page = json.dumps({"path": "a.md", "document": "1| # Итоги\n2| текст"}, ensure_ascii=False)
        evidence = Evidence.from_messages(
            [{"role": "tool", "tool_call_id": "x", "content": [{"type": "text", "text": page}]}]
        )
        assert lines_of(evidence, "a.md")[-1] == EvidenceLine(
            2, "текст", Place("heading", section=("Итоги",))
        )


class TestSnippets:
    def test_each_snippet_with_its_place(self, searched_only: list[Any]) -> None:
        evidence = Evidence.from_messages(searched_only)
        assert lines_of(evidence, "стратегия.pptx") == [
            EvidenceLine(6, "Открытие филиала в Казани во втором квартале", Place("slide", 2))
        ]
        assert lines_of(evidence, "памятка.txt") == [
            EvidenceLine(2, "Пароль от гостевой сети меняется каждый понедельник.", None)
        ]

    def test_a_line_read_whole_outranks_its_snippet(
        self, read_all: list[Any], searched_only: list[Any]
    ) -> None:
        evidence = Evidence.from_messages([*searched_only, *read_all])
        assert len(evidence.documents["стратегия.pptx"].runs()) == 1

    def test_snippets_from_a_search_result_cut_short(self) -> None:
        hits = {
            "results": [
                {"path": "a.pdf", "snippets": [{"line": 3, "text": "…первый", "place": "page 1"}]},
                {"path": "b.txt", "snippets": [{"line": 9, "text": "второй…"}]},
            ]
        }
        text = json.dumps(hits, ensure_ascii=False)
        evidence = Evidence()
        evidence.add_result("search_files", text[: text.index("второй") + 6])
        assert lines_of(evidence, "a.pdf") == [EvidenceLine(3, "первый", Place("page", 1))]
        assert "b.txt" in evidence.documents

"""Each tool on the shared fixture sandbox, through the public `execute` entry."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from tools import Toolbox
from tools.index.globs import FoldedNames, glob_match
from tools.index.snippets import find_snippets, snippets_from_start
from tools.search import split_query


async def call(box: Toolbox, name: str, args: dict[str, Any] | str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((await box.execute(name, args)).text)
    return result


class TestSearch:
    async def test_inflected_query_finds_file_by_name(self, toolbox: Toolbox) -> None:
        found = await call(toolbox, "search_files", {"query": "шарлотка"})
        assert found["results"][0]["path"] == "документы/рецепт_шарлотки.txt"
        assert "name" in found["results"][0]["match"]

    async def test_content_match_has_numbered_snippet(self, toolbox: Toolbox) -> None:
        found = await call(toolbox, "search_files", {"query": "сахар"})
        top = found["results"][0]
        assert top["path"] == "документы/рецепт_шарлотки.txt"
        assert {"line": 6, "text": "- сахар - 1 стакан"} in top["snippets"]
        assert top["match"] == ["content"]

    async def test_nothing_found_gives_hint(self, toolbox: Toolbox) -> None:
        found = await call(toolbox, "search_files", {"query": "квантовая хромодинамика"})
        assert found["results"] == []
        assert found["total"] == 0
        assert "list_files" in found["hint"]


class TestRead:
    async def test_reads_numbered_lines(self, toolbox: Toolbox) -> None:
        page = await call(toolbox, "read_file", {"path": "документы/рецепт_шарлотки.txt"})
        assert page["total_lines"] == 10
        assert page["next_offset"] is None
        assert "6| - сахар - 1 стакан" in page["document"]

    async def test_missing_path_suggests_close_names(self, toolbox: Toolbox) -> None:
        result = await call(toolbox, "read_file", {"path": "шарлотка.txt"})
        assert "error" in result
        assert "документы/рецепт_шарлотки.txt" in result["hint"]

    async def test_empty_file(self, toolbox: Toolbox) -> None:
        (toolbox.sandbox.root / "пусто.txt").write_bytes(b"")
        page = await call(toolbox, "read_file", {"path": "пусто.txt"})
        assert (page["total_lines"], page["next_offset"]) == (0, None)
        assert "empty" in page["notice"]


class TestList:
    async def test_root_lists_folders_first_without_hidden(self, toolbox: Toolbox) -> None:
        listing = await call(toolbox, "list_files", {})
        paths = [e["path"] for e in listing["entries"]]
        kinds = [e["type"] for e in listing["entries"]]
        assert kinds == sorted(kinds)  # "dir" sorts before "file"
        assert ".secret.txt" not in paths
        assert "README.md" in paths


class TestFileNameQueries:
    async def test_an_extension_filters_names_and_is_no_content_word(
        self, toolbox: Toolbox
    ) -> None:
        root = toolbox.sandbox.root
        (root / "выпечка.md").write_text("Шарлотка: пирог с яблоками, рецепт в txt.", "utf-8")
        (root / "заметка.txt").write_text("Файлы в формате txt открываются везде.", "utf-8")
        await asyncio.wait_for(toolbox.wait_synced(), 10)
        found = await call(toolbox, "search_files", {"query": "шарлотка.txt"})
        assert [r["path"] for r in found["results"]] == ["документы/рецепт_шарлотки.txt"]

    def test_split_query(self) -> None:
        assert split_query("шарлотка.txt") == (["шарлотка"], ["*.txt"])
        assert split_query("Отчёт.PDF 2024") == (["отчет", "2024"], ["*.pdf"])
        assert split_query("a.txt b.pdf") == (["a", "b"], [])
        assert split_query("vpn.example.com") == (["vpn", "example", "com"], [])
        assert split_query("*.csv бюджет") == (["бюджет"], ["*.csv"])

    def test_a_questions_punctuation_is_no_glob(self) -> None:
        question = "а если я заболею, кто оплатит гостиницу?!"
        assert split_query(question) == (
            ["а", "если", "я", "заболею", "кто", "оплатит", "гостиницу"],
            [],
        )
        assert split_query("отчет?.pdf ?") == ([], ["отчет?.pdf"]), "a ? inside a name still is"

    async def test_a_question_ending_in_a_question_mark_finds_by_its_words(
        self, toolbox: Toolbox
    ) -> None:
        found = await call(toolbox, "search_files", {"query": "как испечь шарлотку?"})
        assert "документы/рецепт_шарлотки.txt" in [r["path"] for r in found["results"]]


class TestGlobNames:
    NAMES = (
        "a/Отчёт_2024.md",
        "docs/x.pdf",
        "docsy/y.txt",
        "b/c/рецепт_шарлотки.txt",
        "z[1].txt",
        "a.b/c.md",
        "Docs/Upper.PDF",
        "строка\nс переносом.txt",
    )
    GLOBS = ("*.pdf", "docs*", "отчет_*.md", "a/*.md", "*/*", "z[[]1].txt", "?.md", "*.txt")

    @pytest.mark.parametrize("glob", GLOBS)
    def test_one_scan_agrees_with_matching_each_name(self, glob: str) -> None:
        names = FoldedNames(dict.fromkeys(self.NAMES, (1, 1)))
        expected = sorted(n for n in self.NAMES if glob_match(n, [glob]))
        assert names.matching([glob]) == expected
        assert expected

    def test_several_globs_must_all_match(self) -> None:
        names = FoldedNames(dict.fromkeys(self.NAMES, (1, 1)))
        assert names.matching(["docs*", "*.pdf"]) == ["Docs/Upper.PDF", "docs/x.pdf"]


class TestSnippetsFromTheStart:
    def _pattern(self) -> re.Pattern[str]:
        return re.compile(r"(?P<g0>отпуск)|(?P<g1>график)")

    def test_an_early_answer_is_the_same_as_scanning_everything(self) -> None:
        text = "\n".join(["отпуск и график"] * 3 + ["прочее"] * 5000)
        start = text[:2_000]
        assert snippets_from_start(start, self._pattern(), 2) == find_snippets(
            text, self._pattern(), 2
        )

    def test_words_further_on_need_the_whole_text(self) -> None:
        text = "\n".join(["прочее"] * 5000 + ["отпуск и график"])
        assert snippets_from_start(text[:2_000], self._pattern(), 2) is None
        assert find_snippets(text, self._pattern(), 2)[0]["line"] == 5001

    def test_a_line_cut_by_the_window_needs_the_whole_text(self) -> None:
        text = "отпуск и график\n" + "отпуск и график, " * 50
        assert snippets_from_start(text[:100], self._pattern(), 2) is None

    async def test_a_long_document_gets_its_late_snippet(self, toolbox: Toolbox) -> None:
        body = "\n".join([f"строка {i} о складе" for i in range(6000)] + ["премия за квартал"])
        (toolbox.sandbox.root / "длинный.txt").write_text(body, encoding="utf-8")
        await asyncio.wait_for(toolbox.wait_synced(), 10)
        found = await call(toolbox, "search_files", {"query": "премия квартал"})
        assert found["results"][0]["snippets"][0]["line"] == 6001

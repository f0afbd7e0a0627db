"""Passages follow the document's structure: places, headings, paragraphs, tables."""

from __future__ import annotations

from tools.extract.places import Place
from tools.vectors.passages import MAX_CHARS, TARGET_CHARS, cut_passages


class TestPlaces:
    def test_no_passage_crosses_a_page(self) -> None:
        text = "--- page 1 ---\nПервая страница.\n--- page 2 ---\nВторая страница."
        passages = cut_passages("a.pdf", text)
        assert [(p.first, p.last, p.place, p.text) for p in passages] == [
            (2, 2, Place("page", 1), "Первая страница."),
            (4, 4, Place("page", 2), "Вторая страница."),
        ]

    def test_a_heading_opens_a_passage_and_names_the_next_ones(self) -> None:
        long = " ".join(f"Правило {n} об отпусках сотрудников." for n in range(60))
        text = f"Вступление.\n\n# Отпуска\n{long}\n\n## Командировки\nСуточные платятся."
        passages = cut_passages("a.md", text)
        assert passages[0].text == "Вступление."
        assert passages[0].place is None
        holiday = [p for p in passages if p.place == Place("heading", section=("Отпуска",))]
        assert len(holiday) > 1
        assert all(p.text.startswith("Отпуска") or p.text.startswith("# Отпуска") for p in holiday)
        assert all(len(p.text) <= MAX_CHARS + len("Отпуска\n") for p in holiday)
        trips = passages[-1]
        assert trips.place == Place("heading", section=("Отпуска", "Командировки"))
        assert trips.first == 6
        assert "Суточные" in trips.text

    def test_paragraphs_are_packed_to_the_target(self) -> None:
        paragraphs = [f"Абзац {n}: " + "слово " * 30 for n in range(20)]
        passages = cut_passages("a.txt", "\n\n".join(paragraphs))
        assert 1 < len(passages) < len(paragraphs)
        assert all(len(p.text) <= TARGET_CHARS + 200 for p in passages)
        assert passages[0].first == 1
        assert passages[1].first == passages[0].last + 2  # the next paragraph, after a blank


class TestTables:
    def test_every_passage_of_a_table_starts_with_its_header(self) -> None:
        rows = "\n".join(f"Статья {n} | {n * 100} | отдел {n % 7}" for n in range(120))
        text = f"--- sheet «Бюджет» ---\nСтатья | Сумма | Отдел\n{rows}"
        passages = cut_passages("b.xlsx", text)
        assert len(passages) > 2
        assert all(p.text.startswith("Статья | Сумма | Отдел\n") for p in passages)
        assert all(p.place == Place("sheet", name="Бюджет") for p in passages)
        covered = [n for p in passages for n in range(p.first, p.last + 1)]
        assert covered == list(range(2, 123))  # each row once, the header in the first


class TestDigest:
    def test_same_text_same_digest(self) -> None:
        first = cut_passages("a.txt", "Один текст.")[0]
        again = cut_passages("b.txt", "Один текст.")[0]
        other = cut_passages("a.txt", "Другой текст.")[0]
        assert first.digest == again.digest != other.digest

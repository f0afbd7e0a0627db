"""Folding: what a reader would not call a misquote is folded away, everything else is kept."""

from __future__ import annotations

import pytest

from bot.agent.quotes.folding import FoldedLines, fold, without_line_numbers


class TestFold:
    @pytest.mark.parametrize(
        ("left", "right"),
        [
            ("ЁЛКА Ёжик", "елка ежик"),
            ("один  \t два\n\nтри", "один два три"),
            ("«ёлка» „ель“ “fir” 'pine' ’x‘", '"елка" "ель" "fir" "pine" "x"'),
            ("2020–2024, 2020 — 2024, 2020‑2024", "2020-2024, 2020-2024, 2020-2024"),
            ("**жирный** _курсив_ `код`", "жирный курсив код"),
            ("Аренда | 1200000 | Петрова", "аренда 1200000 петрова"),
            ("ёлка", "е\u0308лка"),  # a decomposed letter
            ("мяг\u00adкий", "мягкий"),
            ("50\u00a0000", "50 000"),
        ],
    )
    def test_harmless_differences_fold_alike(self, left: str, right: str) -> None:
        assert fold(left) == fold(right)

    @pytest.mark.parametrize(
        ("left", "right"),
        [
            ("28 дней", "29 дней"),
            ("отпуск", "отпуска"),
            ("50 000", "50000"),
            ("и т. д.", "и т д"),
            ("й", "и"),
        ],
    )
    def test_real_differences_stay(self, left: str, right: str) -> None:
        assert fold(left) != fold(right)

    def test_the_ellipsis_is_kept(self) -> None:
        assert fold("начало … конец...") == "начало … конец..."

    def test_read_file_line_numbers_are_dropped(self) -> None:
        copied = "  9| первая строка\n 10| вторая строка\nтретья 11| не номер"
        assert without_line_numbers(copied) == "первая строка\nвторая строка\nтретья 11| не номер"


class TestFoldedLines:
    def test_offsets_lead_back_to_their_lines(self) -> None:
        lines = ["Первая Строка", "", "  ", "**Третья**  строка", "Ёж"]
        folded = FoldedLines.of(lines)
        assert folded.text == "первая строка третья строка еж"
        assert folded.line_at(folded.text.index("первая")) == 0
        assert folded.line_at(folded.text.index("строка", 7)) == 0
        assert folded.line_at(folded.text.index("третья")) == 3
        assert folded.line_at(folded.text.index("еж")) == 4

    def test_nothing_to_fold(self) -> None:
        folded = FoldedLines.of(["", " ** "])
        assert folded.text == ""
        assert folded.line_at(0) is None

"""Blockquotes of a Markdown answer: which lines, what text, which span."""

from __future__ import annotations

from bot.agent.quotes.blockquotes import find_blockquotes


def spans(answer: str) -> list[str]:
    return [answer[q.start : q.end] for q in find_blockquotes(answer)]


class TestBlockquotes:
    def test_consecutive_lines_are_one_quote(self) -> None:
        answer = "Текст.\n> первая\n> вторая\nпосле\n\n> другая"
        quotes = find_blockquotes(answer)
        assert [q.text for q in quotes] == ["первая\nвторая", "другая"]
        assert spans(answer) == ["> первая\n> вторая", "> другая"]

    def test_nested_and_indented_markers_belong_to_the_quote(self) -> None:
        answer = "   > внешняя\n>> вложенная\n> > ещё\n>без пробела"
        [quote] = find_blockquotes(answer)
        assert quote.text == "внешняя\nвложенная\nещё\nбез пробела"
        assert (quote.start, quote.end) == (0, len(answer))

    def test_a_blank_quote_line_keeps_the_paragraphs_in_one_quote(self) -> None:
        [quote] = find_blockquotes("> раз\n>\n> два\n")
        assert quote.text == "раз\n\nдва"

    def test_code_fences_hide_quotes(self) -> None:
        answer = "```md\n> в коде\n```\n~~~\n> тоже\n```\n> ещё в коде\n~~~\n> снаружи"
        assert [q.text for q in find_blockquotes(answer)] == ["снаружи"]

    def test_a_longer_fence_needs_a_long_enough_close(self) -> None:
        answer = "````\n```\n> внутри\n````\n> снаружи"
        assert [q.text for q in find_blockquotes(answer)] == ["снаружи"]

    def test_windows_line_breaks_and_a_deep_indent(self) -> None:
        answer = "> один\r\n> два\r\n    > код, не цитата"
        assert spans(answer) == ["> один\r\n> два"]
        assert find_blockquotes(answer)[0].text == "один\nдва"

    def test_no_quotes(self) -> None:
        assert find_blockquotes("a > b\n2 > 1") == []

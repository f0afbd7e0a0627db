"""Splitting long answers: limits in UTF-16 units, boundaries, reopened markup, no loss."""

from __future__ import annotations

import re

from bot.telegram.render import Part, render_answer, utf16_len
from tests.render.telegram_html import check_html, squash

LIMIT = 4096


def checked(markdown: str, limit: int = LIMIT) -> list[Part]:
    """Render, and check every part fits and is valid HTML whose text matches `plain`."""
    parts = render_answer(markdown, limit=limit)
    assert parts
    for part in parts:
        assert utf16_len(part.html) <= limit
        assert utf16_len(part.plain) <= limit
        visible = check_html(part.html)
        assert visible.strip()
        assert utf16_len(visible) <= limit
    return parts


class TestCodeBlocks:
    def test_long_code_block_is_reopened_with_its_language(self) -> None:
        lines = [f"    value_{n} = compute({n}) < limit & mask  # строка {n}" for n in range(200)]
        markdown = "Here:\n\n```python\n" + "\n".join(lines) + "\n```\n\nDone."
        parts = checked(markdown)
        assert len(parts) >= 3
        code_parts = [p for p in parts if "<pre>" in p.html]
        assert len(code_parts) >= 2
        for part in code_parts:
            body = part.html.removeprefix("Here:\n\n")
            assert body.startswith('<pre><code class="language-python">')
            assert part.html.split("</pre>")[0].endswith("</code>")
        shown = "\n".join(
            re.search(r'<code class="language-python">(.*)</code>', p.html, re.S).group(1)  # type: ignore[union-attr]
            for p in code_parts
        )
        assert shown.replace("&lt;", "<").replace("&amp;", "&").split("\n") == lines

    def test_code_lines_are_cut_at_line_ends(self) -> None:
        lines = [f"line {n:04d} " + "x" * 30 for n in range(300)]
        parts = checked("```\n" + "\n".join(lines) + "\n```")
        for part in parts:
            for line in part.plain.split("\n"):
                assert line in lines


class TestBoundaries:
    def test_paragraphs_are_kept_whole(self) -> None:
        paragraphs = [f"Параграф {n}. " + "слово " * 150 for n in range(12)]
        parts = checked("\n\n".join(paragraphs))
        assert len(parts) > 1
        expected = {squash(p) for p in paragraphs}
        for part in parts:
            for chunk in part.plain.split("\n\n"):
                assert squash(chunk) in expected

    def test_lines_when_there_are_no_paragraphs(self) -> None:
        lines = [f"line {n} " + "word " * 20 for n in range(100)]
        parts = checked("  \n".join(lines), limit=1000)
        for part in parts:
            for line in part.plain.split("\n"):
                assert squash(line) in {squash(x) for x in lines}

    def test_words_when_there_are_no_lines(self) -> None:
        words = [f"w{n:05d}" for n in range(1500)]
        parts = checked(" ".join(words))
        assert [w for part in parts for w in part.plain.split()] == words

    def test_a_huge_word_is_cut_without_loss(self) -> None:
        word = "".join(chr(ord("a") + n % 26) for n in range(5000))
        parts = checked(f"start {word} end")
        assert len(parts) >= 2
        assert squash("".join(p.plain for p in parts)) == squash(f"start {word} end")
        assert parts[0].plain == "start"

    def test_bold_is_closed_and_reopened(self) -> None:
        parts = checked("**" + ("жирный текст " * 600).strip() + "**")
        assert len(parts) >= 2
        for part in parts:
            assert part.html.startswith("<b>")
            assert part.html.endswith("</b>")

    def test_quote_is_closed_and_reopened(self) -> None:
        parts = checked("> " + "\n> ".join(f"цитата номер {n}" for n in range(400)))
        assert len(parts) >= 2
        assert all(p.html.startswith("<blockquote>") for p in parts)

    def test_long_list_keeps_bullets(self) -> None:
        items = [f"- item {n}: " + "text " * 10 for n in range(200)]
        parts = checked("\n".join(items))
        for part in parts:
            assert all(line.startswith("• ") for line in part.plain.split("\n"))


class TestEntityLimit:
    def test_no_part_has_more_than_a_hundred_entities(self) -> None:
        parts = checked(" ".join(f"**b{n}**" for n in range(250)))
        assert [part.html.count("<b>") for part in parts] == [100, 100, 50]

    def test_pre_with_language_counts_once(self) -> None:
        parts = checked("\n\n".join(f"```py\nx{n}\n```" for n in range(60)))
        assert len(parts) == 1


class TestUtf16:
    def test_emoji_count_two_units(self) -> None:
        text = "😀" * 3000
        assert len(text) < LIMIT < utf16_len(text)
        parts = checked(text)
        assert len(parts) == 2
        assert "".join(p.plain for p in parts) == text

    def test_emoji_heavy_words(self) -> None:
        text = " ".join(["привет😀🎉"] * 900)
        parts = checked(text)
        assert len(parts) >= 3
        assert squash("".join(p.plain for p in parts)) == squash(text)

    def test_joined_emoji_are_not_cut_apart(self) -> None:
        family = "👨\u200d👩\u200d👧"
        parts = checked(family * 1000)
        for part in parts:
            assert part.plain.startswith("👨") and part.plain.endswith("👧")

    def test_flags_are_not_cut_in_half(self) -> None:
        parts = checked("x" + "🇷🇺" * 1500)
        assert all(utf16_len(part.plain.removeprefix("x")) % 4 == 0 for part in parts)
        assert "".join(part.plain for part in parts) == "x" + "🇷🇺" * 1500

    def test_escaping_counts_against_the_html_limit(self) -> None:
        text = "a&b<c " * 1000
        parts = checked(text)
        assert utf16_len(text) < 2 * LIMIT
        assert len(parts) == 4  # the escaped source is 13,000 units long

        assert squash("".join(p.plain for p in parts)) == squash(text)


class TestPlainFallback:
    def test_link_addresses_fit_in_plain_parts(self) -> None:
        link = "[документ](https://example.com/" + "d" * 300 + ")"
        parts = checked(" ".join([link] * 60))
        assert len(parts) >= 2
        assert all("https://example.com/" in p.plain for p in parts)

    def test_overlong_address_is_shown_as_text(self) -> None:
        url = "https://example.com/" + "x" * 5000
        parts = checked(f"[doc]({url})")
        assert not any("<a " in p.html for p in parts)
        assert squash("".join(p.plain for p in parts)) == squash(f"doc ({url})")


class TestTinyLimits:
    def test_markup_heavier_than_the_limit_falls_back_to_text_for_that_span(self) -> None:
        parts = checked("> ***~~[xy](https://e.co/a) more~~***", limit=64)
        assert [part.html for part in parts] == [
            "xy",
            "<blockquote><i><b><s> more</s></b></i></blockquote>",
        ]

"""Each Markdown construct rendered to Telegram HTML and to plain text."""

from __future__ import annotations

import pytest

from bot.telegram.render import MIN_LIMIT, Part, escape, render_answer, utf16_len
from tests.render.telegram_html import check_html


def single(markdown: str) -> Part:
    parts = render_answer(markdown)
    assert len(parts) == 1, parts
    check_html(parts[0].html)
    return parts[0]


class TestInline:
    def test_emphasis(self) -> None:
        part = single("**bold**, *italic*, ~~gone~~ and ***both***")
        assert part.html == ("<b>bold</b>, <i>italic</i>, <s>gone</s> and <i><b>both</b></i>")
        assert part.plain == "bold, italic, gone and both"

    def test_inline_code_is_escaped_and_not_nested_in_bold(self) -> None:
        part = single("**run `a<b && c`**")
        assert part.html == "<b>run </b><code>a&lt;b &amp;&amp; c</code>"
        assert part.plain == "run a<b && c"

    def test_soft_and_hard_breaks_keep_lines(self) -> None:
        assert single("one\ntwo  \nthree").html == "one\ntwo\nthree"

    def test_backslash_escapes_show_the_character(self) -> None:
        assert single(r"\*not italic\*").html == "*not italic*"


class TestEscaping:
    def test_script_tag_is_text(self) -> None:
        part = single("<script>alert('x')</script>")
        assert part.html == "&lt;script&gt;alert('x')&lt;/script&gt;"
        assert part.plain == "<script>alert('x')</script>"

    def test_ampersand_and_comparisons(self) -> None:
        part = single("Tom & Jerry: a < b > c, AT&T")
        assert part.html == "Tom &amp; Jerry: a &lt; b &gt; c, AT&amp;T"
        assert part.plain == "Tom & Jerry: a < b > c, AT&T"

    def test_html_entities_in_markdown_are_decoded_then_escaped(self) -> None:
        assert single("&lt;b&gt; &amp;").html == "&lt;b&gt; &amp;"

    def test_raw_html_block_is_text(self) -> None:
        part = single('<div onclick="x()">\n<b>hi</b>\n</div>')
        assert "<div" not in part.html
        assert "&lt;b&gt;hi&lt;/b&gt;" in part.html

    def test_escape_helper(self) -> None:
        assert escape("<a href='x'>&</a>") == "&lt;a href='x'&gt;&amp;&lt;/a&gt;"


class TestLinks:
    @pytest.mark.parametrize(
        "href",
        ["https://example.com/a", "http://example.com", "tg://resolve?domain=x", "mailto:a@b.c"],
    )
    def test_safe_schemes_become_links(self, href: str) -> None:
        part = single(f"[open]({href})")
        assert part.html == f'<a href="{href}">open</a>'
        assert part.plain == f"open ({href})"

    def test_quotes_and_ampersands_in_href_are_escaped(self) -> None:
        part = single('[q](https://x.org/?a=1&b="2")')
        assert part.html == '<a href="https://x.org/?a=1&amp;b=%222%22">q</a>'

    @pytest.mark.parametrize(
        "href", ["javascript:alert(1)", "data:text/html,x", "ftp://x.org/f", "file:///etc/passwd"]
    )
    def test_unsafe_schemes_are_text(self, href: str) -> None:
        part = single(f"[click]({href})")
        assert "<a" not in part.html
        assert "click" in part.plain

    def test_relative_link_shows_the_path(self) -> None:
        part = single("see [рецепт](docs/рецепт_шарлотки.txt)")
        assert part.html == "see рецепт (docs/рецепт_шарлотки.txt)"

    def test_autolink_has_no_repeated_address(self) -> None:
        part = single("<https://example.com/x>")
        assert part.html == '<a href="https://example.com/x">https://example.com/x</a>'
        assert part.plain == "https://example.com/x"

    def test_empty_link_text_shows_the_address(self) -> None:
        assert single("[](https://e.com)").html == '<a href="https://e.com">https://e.com</a>'

    def test_inline_code_inside_link_keeps_the_link(self) -> None:
        assert single("[`cfg`](https://e.com)").html == '<a href="https://e.com">cfg</a>'

    def test_image_becomes_link_with_its_text(self) -> None:
        part = single("![a cat](https://e.com/cat.png)")
        assert part.html == '<a href="https://e.com/cat.png">a cat</a>'

    def test_image_with_unsafe_source_is_text(self) -> None:
        assert single("![x](data:image/png;base64,AAAA)").html.startswith("x")


class TestBlocks:
    def test_heading_is_a_bold_line(self) -> None:
        part = single("# Title\n\nBody")
        assert part.html == "<b>Title</b>\n\nBody"

    def test_fenced_code_keeps_language(self) -> None:
        part = single("```python\nif a < b:\n    pass\n```")
        assert part.html == (
            '<pre><code class="language-python">if a &lt; b:\n    pass</code></pre>'
        )
        assert part.plain == "if a < b:\n    pass"

    @pytest.mark.parametrize("info", ['"><script>', "x y", "a" * 40, "{.py}"])
    def test_unsafe_language_is_dropped(self, info: str) -> None:
        html = single(f"```{info}\ncode\n```").html
        assert html in ("<pre>code</pre>", '<pre><code class="language-x">code</code></pre>')

    def test_indented_code_block(self) -> None:
        assert single("text\n\n    raw <code>\n").html == "text\n\n<pre>raw &lt;code&gt;</pre>"

    def test_blockquote(self) -> None:
        part = single("> quoted **text**\n> more\n\nafter")
        assert part.html == "<blockquote>quoted <b>text</b>\nmore</blockquote>\n\nafter"

    def test_nested_quote_is_not_a_nested_tag(self) -> None:
        part = single("> outer\n>\n> > inner")
        assert part.html == "<blockquote>outer\n\n│ inner</blockquote>"

    def test_horizontal_rule(self) -> None:
        assert single("a\n\n---\n\nb").plain == "a\n\n──────────\n\nb"


class TestLists:
    def test_bullets(self) -> None:
        assert single("- one\n- *two*").html == "• one\n• <i>two</i>"

    def test_task_items_get_boxes(self) -> None:
        assert single("- [ ] buy\n- [x] **cook**\n- [y] other").html == (
            "☐ buy\n☑ <b>cook</b>\n• [y] other"
        )

    def test_numbered_list_keeps_its_start(self) -> None:
        assert single("3. c\n4. d").plain == "3. c\n4. d"

    def test_nested_lists_are_indented(self) -> None:
        part = single("- a\n  - b\n    1. c\n    2. d\n- e\n\nend")
        assert part.plain == "• a\n  ◦ b\n    1. c\n    2. d\n• e\n\nend"

    def test_paragraph_continuation_is_indented(self) -> None:
        assert single("1. first\n\n   second para\n2. next").plain == (
            "1. first\n   second para\n2. next"
        )

    def test_code_block_in_list_stays_one_pre(self) -> None:
        part = single("- step:\n\n  ```sh\n  make\n  make test\n  ```")
        assert part.html == (
            '• step:\n<pre><code class="language-sh">  make\n  make test</code></pre>'
        )


class TestApi:
    def test_blank_input_gives_no_parts(self) -> None:
        assert render_answer("  \n\n ") == []

    def test_input_with_no_visible_rendering_is_kept_as_text(self) -> None:
        parts = render_answer("[]()")
        assert [part.plain for part in parts] == ["[]()"]

    def test_tiny_limit_is_refused(self) -> None:
        with pytest.raises(ValueError, match="limit"):
            render_answer("x", limit=MIN_LIMIT - 1)

    def test_utf16_len_counts_surrogate_pairs(self) -> None:
        assert utf16_len("aя") == 2
        assert utf16_len("😀") == 2
        assert utf16_len("👨‍👩‍👧") == 8

"""The HTML checker used by the render tests must reject what Telegram would reject."""

from __future__ import annotations

import pytest

from tests.render.telegram_html import check_html


class TestChecker:
    @pytest.mark.parametrize(
        "html",
        [
            "<b>open",
            "<b><i>x</b></i>",
            "<div>x</div>",
            "a < b",
            "AT&T",
            '<a href="javascript:x">x</a>',
            '<b class="x">x</b>',
            "<blockquote><blockquote>x</blockquote></blockquote>",
            "<code><b>x</b></code>",
            '<code class="language-py">x</code>',
            "<br/>",
            "<b>x</b>" * 101,
        ],
    )
    def test_rejects(self, html: str) -> None:
        with pytest.raises(AssertionError):
            check_html(html)

    def test_accepts_and_returns_visible_text(self) -> None:
        html = '<pre><code class="language-py">a &lt; b &amp;&amp; c</code></pre><a href="tg://x">t</a>'
        assert check_html(html) == "a < b && ct"

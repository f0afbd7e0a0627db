"""Tables: a monospace grid when narrow, "header: value" records when wide."""

from __future__ import annotations

from bot.telegram.render import render_answer
from tests.render.telegram_html import check_html


def render_one(markdown: str) -> tuple[str, str]:
    parts = render_answer(markdown)
    assert len(parts) == 1
    check_html(parts[0].html)
    return parts[0].html, parts[0].plain


class TestNarrowTable:
    def test_grid_with_alignment(self) -> None:
        html, plain = render_one("| Fruit | Qty |\n|:--|--:|\n| Apple | 3 |\n| Kiwi | 12 |")
        assert plain == "Fruit │ Qty\n──────┼────\nApple │   3\nKiwi  │  12"
        assert html == f"<pre>{plain}</pre>"

    def test_wide_characters_take_two_columns(self) -> None:
        _, plain = render_one("| a | b |\n|---|---|\n| 🍎 | x |\n| ab | y |")
        assert plain.splitlines()[2:] == ["🍎 │ x", "ab │ y"]

    def test_cells_are_escaped_inside_pre(self) -> None:
        html, _ = render_one("| op | ok |\n|---|---|\n| a<b & c | **yes** |")
        assert "a&lt;b &amp; c │ yes" in html


class TestWideTable:
    MARKDOWN = (
        "| Document name | Department responsible | Updated |\n"
        "|---|---|---|\n"
        "| Рецепт шарлотки | Кухня | [вчера](https://e.com/log) |\n"
        "| Vacation policy |  | `2024-01-01` |\n"
    )

    def test_rows_become_records(self) -> None:
        html, plain = render_one(self.MARKDOWN)
        assert plain == (
            "Document name: Рецепт шарлотки\n"
            "Department responsible: Кухня\n"
            "Updated: вчера (https://e.com/log)\n"
            "\n"
            "Document name: Vacation policy\n"
            "Updated: 2024-01-01"
        )
        assert html.startswith("<b>Document name: Рецепт шарлотки</b>\n")
        assert '<b>Updated: </b><a href="https://e.com/log">вчера</a>' in html
        assert "<b>Updated: </b><code>2024-01-01</code>" in html

    def test_header_only_table(self) -> None:
        html, _ = render_one("| A very long first header | and a second long header |\n|---|---|")
        assert html == "<b>A very long first header · and a second long header</b>"

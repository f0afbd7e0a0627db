"""Markdown tables in a form a phone shows well.

A narrow table becomes a monospace grid in `<pre>` (alignment kept, wide characters counted
as two columns). A wide one would wrap into noise on a phone, so each row becomes a short
record of "header: value" lines instead, its first line in bold.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from bot.telegram.render.emitter import Emitter
from bot.telegram.render.inline import InlineRenderer
from bot.telegram.render.markup import BOLD, PRE, Span
from bot.telegram.render.text import display_width

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode


@dataclass(frozen=True, slots=True)
class _Cell:
    spans: list[Span]
    text: str
    align: str


def render_table(
    node: SyntaxTreeNode, inline: InlineRenderer, out: Emitter, *, max_grid_width: int
) -> None:
    rows = [_row(tr, inline) for tr in _rows(node)]
    if not rows:
        return
    header, body = rows[0], rows[1:]
    columns = max(len(row) for row in rows)
    widths = [
        max((display_width(row[col].text) for row in rows if col < len(row)), default=0)
        for col in range(columns)
    ]
    if sum(widths) + 3 * (columns - 1) <= max_grid_width:
        out.push_tag(PRE)
        out.write([Span(_grid(header, body, widths))])
        out.pop_tag()
    else:
        _records(header, body, out)


def _rows(node: SyntaxTreeNode) -> list[SyntaxTreeNode]:
    found: list[SyntaxTreeNode] = []
    for child in node.children:
        if child.type == "tr":
            found.append(child)
        else:
            found.extend(_rows(child))
    return found


def _row(tr: SyntaxTreeNode, inline: InlineRenderer) -> list[_Cell]:
    cells = []
    for cell in tr.children:
        content = cell.children[0] if cell.children else None
        spans = inline.render(content)
        text = " ".join("".join(span.text for span in spans).split())
        style = str(cell.attrs.get("style", ""))
        cells.append(_Cell(spans, text, style.removeprefix("text-align:")))
    return cells


def _grid(header: list[_Cell], body: list[list[_Cell]], widths: list[int]) -> str:
    lines = [_grid_line(header, widths), "─┼─".join("─" * width for width in widths)]
    lines.extend(_grid_line(row, widths) for row in body)
    return "\n".join(line.rstrip() for line in lines)


def _grid_line(row: list[_Cell], widths: list[int]) -> str:
    cells = []
    for col, width in enumerate(widths):
        cell = row[col] if col < len(row) else _Cell([], "", "")
        gap = width - display_width(cell.text)
        if cell.align == "right":
            cells.append(" " * gap + cell.text)
        elif cell.align == "center":
            cells.append(" " * (gap // 2) + cell.text + " " * (gap - gap // 2))
        else:
            cells.append(cell.text + " " * gap)
    return " │ ".join(cells)


def _records(header: list[_Cell], body: list[list[_Cell]], out: Emitter) -> None:
    if not body:
        out.write([Span(" · ".join(cell.text for cell in header), (BOLD,))])
        return
    for index, row in enumerate(body):
        if index:
            out.request_break(2)
        first = True
        for col, cell in enumerate(row):
            if not cell.text:
                continue
            name = header[col].text if col < len(header) else ""
            line = [Span(f"{name}: ", (BOLD,))] if name else []
            line.extend(_bold(cell.spans) if first else cell.spans)
            if not first:
                out.write([Span("\n")])
            out.write(line)
            first = False


def _bold(spans: list[Span]) -> list[Span]:
    return [
        span
        if BOLD in span.tags or any(tag.name == "code" for tag in span.tags)
        else replace(span, tags=(BOLD, *span.tags))
        for span in spans
    ]

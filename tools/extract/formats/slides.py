"""pptx slide decks (python-pptx): slide by slide after a `--- slide N ---` marker.

Each slide gives its title first, then the text of its other shapes in their order (groups
opened), tables as rows of cells joined with ` | `, and its speaker notes after "Notes:".
Pictures and media are never decoded. At most `MAX_SLIDES` slides are read, the cut said.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from tools.extract.formats.archive import check_zip
from tools.extract.formats.base import Budget, FormatError, Lines, cut_note, plain

if TYPE_CHECKING:
    from pptx.shapes.base import BaseShape
    from pptx.slide import Slide

MAX_SLIDES = 1_000


def pptx_text(data: bytes, budget: Budget) -> str:
    """Every slide's title, text, tables and notes, after its marker."""
    check_zip(data, "pptx")
    from pptx import Presentation  # noqa: PLC0415  (imported only in the worker)
    from pptx.exc import PackageNotFoundError  # noqa: PLC0415

    try:
        deck = Presentation(io.BytesIO(data))
        slides = list(deck.slides)
    except (PackageNotFoundError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise FormatError(f"the pptx file is damaged ({type(exc).__name__})") from None
    lines = Lines(budget.max_chars)
    total = len(slides)
    for number, slide in enumerate(slides, start=1):
        if number > MAX_SLIDES:
            lines.add(cut_note(f"only the first {MAX_SLIDES:,} of {total:,} slides are read"))
            break
        lines.add(f"--- slide {number} ---")
        for line in slide_lines(slide):
            lines.add(line)
        if lines.full:
            break
    return lines.text()


def slide_lines(slide: Slide) -> Iterator[str]:
    """A slide's title, then its shapes' text and tables, then its notes."""
    title = slide.shapes.title
    if title is not None and title.has_text_frame:
        heading = plain(title.text_frame.text)
        if heading:
            yield heading
    for shape in _flat(slide.shapes):
        if title is not None and shape.shape_id == title.shape_id:
            continue
        yield from _shape_lines(shape)
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        notes = [line for line in (frame.text.splitlines() if frame is not None else []) if line]
        if notes:
            yield f"Notes: {notes[0]}"
            yield from notes[1:]


def _flat(shapes: Iterable[BaseShape]) -> Iterator[BaseShape]:
    """Shapes in order, the members of groups in place of the group."""
    from pptx.shapes.group import GroupShape  # noqa: PLC0415

    for shape in shapes:
        if isinstance(shape, GroupShape):
            yield from _flat(shape.shapes)
        else:
            yield shape


def _shape_lines(shape: BaseShape) -> Iterator[str]:
    from pptx.shapes.autoshape import Shape  # noqa: PLC0415
    from pptx.shapes.graphfrm import GraphicFrame  # noqa: PLC0415

    if isinstance(shape, GraphicFrame) and shape.has_table:
        for row in shape.table.rows:
            cells = [plain(cell.text) for cell in row.cells]
            if any(cells):
                yield " | ".join(cells)
    elif isinstance(shape, Shape) and shape.has_text_frame:
        for paragraph in shape.text_frame.paragraphs:
            text = plain(paragraph.text)
            if text:
                yield text

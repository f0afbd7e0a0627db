"""Buttons under an answer that open its sources: one per document, each carrying a short id.

A button's data is `src:` and an id from `SourceLinks`, never a path: Telegram allows 64 bytes
of data and lets any client read them, while a path can be long and says more than it should.
The label is the file's name (not its folders), shortened in the middle so its end and
extension stay visible, behind an icon; control and bidi characters are written out, so a
name cannot disguise itself. The first five sources get buttons, as the sources line shows.

Beside a PDF's or a scan's button, in its row, a button per page the answer quoted ("🖼 p. 12")
shows that page as a picture: its data is `pg:` and an id of its own from `SourceLinks`. At
most three pages a file and six in all, so the keyboard stays a few rows on a phone.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.storage.source_links import SourceLinks, is_link_id
from bot.telegram.texts import Texts
from bot.telegram.texts.names import visible
from tools.extract.formats.kinds import has_pages

log = logging.getLogger(__name__)

PREFIX = "src:"
PAGE_PREFIX = "pg:"
MAX_BUTTONS = 5
MAX_PAGES_PER_SOURCE = 3
MAX_PAGE_BUTTONS = 6
LABEL_CHARS = 40
_TAIL_CHARS = 14
ICON = "📄"


PageIds = Mapping[str, Sequence[tuple[int, str]]]
"""Per source path, its pages to show, each with the id of its button."""


def source_data(link_id: str) -> str:
    """The callback data of a source button."""
    return PREFIX + link_id


def page_data(link_id: str) -> str:
    """The callback data of a page button."""
    return PAGE_PREFIX + link_id


def link_id_of(data: str | None, prefix: str = PREFIX) -> str | None:
    """The id a source button's data carries (a page button's, given `PAGE_PREFIX`); None for
    anything not shaped like one."""
    if data is None or not data.startswith(prefix):
        return None
    link_id = data.removeprefix(prefix)
    return link_id if is_link_id(link_id) else None


def button_label(path: str) -> str:
    """The icon and the file's name, at most `LABEL_CHARS` characters of it."""
    name = visible(PurePosixPath(path).name or path)
    if len(name) > LABEL_CHARS:
        head = LABEL_CHARS - _TAIL_CHARS - 1
        name = name[:head].rstrip() + "…" + name[-_TAIL_CHARS:]
    return f"{ICON} {name}"


def pages_offered(
    sources: Sequence[str], pages: Mapping[str, Sequence[int]]
) -> list[tuple[str, int]]:
    """The (path, page) pairs that get buttons: for the given sources that are PDFs or scans,
    in their order, each one's first `MAX_PAGES_PER_SOURCE` distinct pages as given, at most
    `MAX_PAGE_BUTTONS` in all."""
    offered: list[tuple[str, int]] = []
    for path in sources:
        if not has_pages(path):
            continue
        numbers = [n for n in dict.fromkeys(pages.get(path, ())) if n >= 1]
        offered += [(path, n) for n in numbers[:MAX_PAGES_PER_SOURCE]]
    return offered[:MAX_PAGE_BUTTONS]


def source_markup(
    paths: Sequence[str],
    ids: Sequence[str],
    page_ids: PageIds | None = None,
    *,
    texts: Texts | None = None,
) -> InlineKeyboardMarkup:
    """One row per document: its button, then a button per page in `page_ids` (labelled in
    `texts`' language; no page buttons without `texts`)."""
    rows: list[list[InlineKeyboardButton]] = []
    for path, link_id in zip(paths, ids, strict=True):
        row = [InlineKeyboardButton(text=button_label(path), callback_data=source_data(link_id))]
        if texts is not None and page_ids is not None:
            row += [
                InlineKeyboardButton(
                    text=texts.page_button_label(page), callback_data=page_data(page_id)
                )
                for page, page_id in page_ids.get(path, ())
            ]
        rows.append(row)
    return InlineKeyboardMarkup(inline_keyboard=rows)


async def source_buttons(
    links: SourceLinks | None,
    chat_id: int,
    sources: Sequence[str],
    pages: Mapping[str, Sequence[int]] | None = None,
    *,
    texts: Texts | None = None,
) -> InlineKeyboardMarkup | None:
    """Buttons for an answer's first sources in `chat_id`; None when there are none.

    `pages` names, per source path, the pages the answer quoted: PDFs and scans among the
    shown sources get a button per page (see `pages_offered`), labelled in `texts`' language
    (needed for them). A store that cannot be written costs the buttons, never the answer.
    """
    shown = list(dict.fromkeys(sources))[:MAX_BUTTONS]
    if links is None or not shown:
        return None
    offered = pages_offered(shown, pages or {}) if texts is not None else []
    try:
        ids = await links.issue(chat_id, shown)
        issued = await links.issue_pages(chat_id, offered) if offered else []
    except (sqlite3.Error, OSError) as exc:
        log.warning("no source buttons for an answer in chat %d: %s", chat_id, exc)
        return None
    page_ids: dict[str, list[tuple[int, str]]] = {}
    for (path, page), page_id in zip(offered, issued, strict=True):
        page_ids.setdefault(path, []).append((page, page_id))
    return source_markup(shown, ids, page_ids, texts=texts)

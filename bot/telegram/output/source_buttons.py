"""Buttons under an answer that open its sources: one per document, each carrying a short id.

A button's data is `src:` and an id from `SourceLinks`, never a path: Telegram allows 64 bytes
of data and lets any client read them, while a path can be long and says more than it should.
The label is the file's name (not its folders), shortened in the middle so its end and
extension stay visible, behind an icon; control and bidi characters are written out, so a
name cannot disguise itself. The first five sources get buttons, as the sources line shows.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from pathlib import PurePosixPath

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.storage.source_links import SourceLinks, is_link_id
from bot.telegram.texts.names import visible

log = logging.getLogger(__name__)

PREFIX = "src:"
MAX_BUTTONS = 5
LABEL_CHARS = 40
_TAIL_CHARS = 14
ICON = "📄"


def source_data(link_id: str) -> str:
    """The callback data of a source button."""
    return PREFIX + link_id


def link_id_of(data: str | None) -> str | None:
    """The id a source button's data carries; None for anything not shaped like one."""
    if data is None or not data.startswith(PREFIX):
        return None
    link_id = data.removeprefix(PREFIX)
    return link_id if is_link_id(link_id) else None


def button_label(path: str) -> str:
    """The icon and the file's name, at most `LABEL_CHARS` characters of it."""
    name = visible(PurePosixPath(path).name or path)
    if len(name) > LABEL_CHARS:
        head = LABEL_CHARS - _TAIL_CHARS - 1
        name = name[:head].rstrip() + "…" + name[-_TAIL_CHARS:]
    return f"{ICON} {name}"


def source_markup(paths: Sequence[str], ids: Sequence[str]) -> InlineKeyboardMarkup:
    """One button per row, each opening its document."""
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [InlineKeyboardButton(text=button_label(path), callback_data=source_data(link_id))]
            for path, link_id in zip(paths, ids, strict=True)
        ]
    )


async def source_buttons(
    links: SourceLinks | None, chat_id: int, sources: Sequence[str]
) -> InlineKeyboardMarkup | None:
    """Buttons for an answer's first sources in `chat_id`; None when there are none.

    A store that cannot be written costs the buttons, never the answer.
    """
    shown = list(dict.fromkeys(sources))[:MAX_BUTTONS]
    if links is None or not shown:
        return None
    try:
        ids = await links.issue(chat_id, shown)
    except (sqlite3.Error, OSError) as exc:
        log.warning("no source buttons for an answer in chat %d: %s", chat_id, exc)
        return None
    return source_markup(shown, ids)

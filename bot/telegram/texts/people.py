"""People and moments in the bot's HTML texts: a user's name as they chose it, safely shown.

A display name is whatever its owner typed: HTML, bidi controls that reverse the text around it,
line breaks. The admins decide about access by reading it, so it is escaped and its hidden
characters written out, like file names (`names.visible`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from bot.telegram.texts.names import visible

_MAX_NAME = 64


def who(name: str, username: str | None, user_id: int) -> str:
    """`Ann Lee (@ann)`, escaped for HTML; the id when the name is unknown."""
    shown = visible(name.strip())
    if len(shown) > _MAX_NAME:
        shown = shown[: _MAX_NAME - 1] + "…"
    text = escape(shown) if shown else f"<code>{user_id}</code>"
    if username:
        text += f" (@{escape(visible(username))})"
    return text


def when(unix_time: float) -> str:
    """`2025-06-15 14:06 UTC`: the same in every language, and unambiguous."""
    return datetime.fromtimestamp(unix_time, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")

"""Telegram user ids as the bot takes them from people: one check, at every edge.

Telegram's Bot API documents a user's id as positive with at most 52 significant bits, so it
fits a 64-bit integer and a double. An id an admin types (`/allow ID`, `/deny ID`), or the
admins' page sends, is taken only within that range: a longer number would not fit the
databases' 64-bit columns, and is nobody's id anyway. ADMIN_IDS and ALLOWED_USER_IDS are held
to the same range at start; the bound lives with the settings (`bot.settings.model`), which
this package builds on.
"""

from __future__ import annotations

from bot.settings.model import MAX_USER_ID

__all__ = ["MAX_USER_ID", "user_id_of"]


def user_id_of(value: object) -> int | None:
    """The Telegram user id `value` names (an int, or a string of ASCII digits), or None when
    it names none: not a whole number, or outside 1..MAX_USER_ID."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        if not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_USER_ID)):
            return None
        value = int(text)
    if not isinstance(value, int):
        return None
    return value if 1 <= value <= MAX_USER_ID else None

"""Scopes: which folders of the documents folder each chat and each user may see.

`rules` reads SCOPES_FILE, bot.storage.scopes keeps the changes admins make from Telegram,
`scopes` answers the one question the front door asks: within which scope is this question
answered, and `viewer` the one every report asks: may this viewer see this path.
No aiogram here; the tools enforce a scope, this package only decides it.
"""

from bot.settings.scopes.rules import (
    ScopeRules,
    ScopesFileError,
    load_rules,
    parse_rules,
    place_key,
)
from bot.settings.scopes.scopes import ChatScope, Scopes

__all__ = [
    "ChatScope",
    "ScopeRules",
    "Scopes",
    "ScopesFileError",
    "load_rules",
    "parse_rules",
    "place_key",
]

"""The admins a source's questions and notices go to: each who may see the source's folder.

`SourceQuestions` and `SourceNotices` both write to every admin (ADMIN_IDS and those granted in
Telegram) whose folders hold the source's folder, in the language that admin last used; this is
that choice, made once, and the Bot both send through (bound at the dispatcher's start).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from aiogram import Bot

from bot.access import AccessPolicy
from bot.settings.scopes import Scopes
from bot.settings.scopes.viewer import sees
from bot.telegram.texts.sources import SourcesTexts, sources_texts
from tools.jail.scope import Scope


@dataclass(frozen=True, slots=True)
class SourceAdmin:
    """One admin to write to: their chat, what they see of the folder, their texts."""

    chat_id: int
    viewer: Scope | None
    texts: SourcesTexts


class SourceAdmins:
    """Who may hear of a source, and the Bot they hear through; `bind` gives it."""

    def __init__(self, access: AccessPolicy, scopes: Scopes) -> None:
        self._access = access
        self._scopes = scopes
        self._bot: Bot | None = None

    def bind(self, bot: Bot) -> None:
        """Write through `bot` from now on."""
        self._bot = bot

    async def seeing(self, folder: str) -> AsyncIterator[SourceAdmin]:
        """Every admin whose folders hold `folder`, by id."""
        for admin in sorted(self._access.admin_ids()):
            viewer = await self._scopes.of_viewer(admin)
            if sees(viewer, folder):
                texts = sources_texts(self._access.language(admin) or "en")
                yield SourceAdmin(admin, viewer, texts)

"""Which scope a question is answered within: the chat's, narrowed to the asker's own.

A chat's scope is the one an admin set there with `/scope`, else its SCOPES_FILE entry, else the
file's default. In a forum topic, the topic's own scope (set with `/scope` inside it, else its
`chat/topic` entry in the file) comes first, and the chat's when the topic has none. A user's own
scope is their entry, else the default. A question sees only what both allow: the place keeps a
group's documents from a member who may see more (the answer is read by everyone in the group), and
the asker's scope keeps theirs from a group that may see more. Either alone would let one of them
widen the other.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from bot.settings.scopes.rules import ScopeRules, place_key
from bot.storage.scopes import ChatOverride, ScopeStore, load_scope
from tools.errors import SandboxError
from tools.jail.sandbox import Sandbox
from tools.jail.scope import Scope, intersect, narrower

log = logging.getLogger(__name__)

Source = Literal["telegram", "file", "default"]


@dataclass(frozen=True, slots=True)
class ChatScope:
    """A chat's scope and where it comes from (`override` when set from Telegram)."""

    scope: Scope | None
    source: Source
    override: ChatOverride | None = None


class Scopes:
    """Decides scopes from SCOPES_FILE and the changes stored from Telegram."""

    def __init__(
        self, rules: ScopeRules, store: ScopeStore, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.rules = rules
        self.store = store
        self._clock = clock

    async def of_chat(self, chat_id: int, thread_id: int | None = None) -> ChatScope:
        """The chat's own scope, or its forum topic's (before the asker's is applied)."""
        if thread_id is not None:
            override = await self.store.chat_override(chat_id, thread_id)
            if override is not None:
                return ChatScope(override.scope, "telegram", override)
            listed, scope = self.rules.topic(chat_id, thread_id)
            if listed:
                return ChatScope(scope, "file")
        override = await self.store.chat_override(chat_id)
        if override is not None:
            return ChatScope(override.scope, "telegram", override)
        source: Source = "file" if self.rules.listed(chat_id) else "default"
        return ChatScope(self.rules.of(chat_id), source)

    async def for_question(
        self, chat_id: int, user_id: int | None, thread_id: int | None = None
    ) -> Scope | None:
        """The scope a question asked in `chat_id` (in forum topic `thread_id`, if any) by
        `user_id` is answered within."""
        chat = await self.of_chat(chat_id, thread_id)
        own = self.own(user_id) if user_id is not None else self.rules.default
        return intersect(chat.scope, own)

    def own(self, user_id: int) -> Scope | None:
        """A person's own scope, wherever they are: their entry, else the default. No chat
        they are in shows them more, and no chat an admin sets may be given more."""
        return self.rules.of(user_id)

    async def of_viewer(self, user_id: int) -> Scope | None:
        """What a person is shown of the documents folder outside any one group: their
        questions' scope in their private chat with the bot (what an admin's reports name)."""
        return await self.for_question(user_id, user_id)

    async def after_reset(self, chat_id: int, thread_id: int | None = None) -> Scope | None:
        """The scope the chat (or topic) would have without its own `/scope`."""
        if thread_id is not None:
            listed, scope = self.rules.topic(chat_id, thread_id)
            if listed:
                return scope
            return (await self.of_chat(chat_id)).scope
        return self.rules.of(chat_id)

    async def set_chat(
        self,
        chat_id: int,
        scope: Scope | None,
        *,
        by: int,
        by_name: str = "",
        thread_id: int | None = None,
    ) -> None:
        """Set a chat's (or a forum topic's) scope from Telegram; it overrides SCOPES_FILE
        there."""
        override = ChatOverride(chat_id, scope, by, by_name, self._clock(), thread_id)
        await self.store.set_chat(override)
        place = place_key(chat_id, thread_id)
        log.info("scope of chat %s set to %s by %d", place, _logged(scope), by)

    async def reset_chat(self, chat_id: int, *, by: int, thread_id: int | None = None) -> bool:
        """Back to SCOPES_FILE for this chat (or topic); False when nothing had been set."""
        cleared = await self.store.clear_chat(chat_id, thread_id)
        if cleared:
            place = place_key(chat_id, thread_id)
            log.info("scope of chat %s reset to SCOPES_FILE by %d", place, by)
        return cleared

    def missing_folders(self, sandbox: Sandbox) -> list[str]:
        """Folders SCOPES_FILE names that are not folders in the documents folder (blocking)."""
        missing = []
        for folder in sorted(self.rules.folders()):
            try:
                present = sandbox.resolve(folder).is_dir()
            except SandboxError:
                present = False
            if not present:
                missing.append(folder)
        return missing

    async def narrowed_since_last(self, conversation: str, scope: Scope | None) -> bool:
        """Record the scope `conversation` runs under now; True when it leaves out something
        the conversation's earlier questions could see (its history must not come along)."""
        previous = await self.store.swap_conversation_scope(conversation, scope)
        before = None if previous is None else load_scope(previous)
        return narrower(scope, before)


def _logged(scope: Scope | None) -> str:
    """A scope in a log line: folder names are the operator's, not users' words."""
    return "everything" if scope is None else scope.shown()

"""What every middleware and handler needs to know about an update's chat, worked out once.

The conversation an update belongs to, the language its sender reads, where replies go, whether
the chat is a group and the scope its sender works within there are asked for by the access
check, the rate limit, the per-conversation order, the paste joiner and every handler.
`ChatContextMiddleware` works them out once per update, right after aiogram's own
`event_context`, and leaves a frozen `ChatContext` in the handler data under `chat_context`:
middlewares read it there, and aiogram hands it to any handler with a `chat_context` parameter.
The scope costs a store read and most updates never need it, so it is read on first use and
kept for the rest of the update.

It is built from aiogram's `EventContext` (chat, sender, forum topic), not from a message, so
a callback query from a button under one of the bot's messages gets the same context as a
message in that chat. Updates outside any chat (inline queries) get none. Lines logged while
an update is handled name its conversation (`bot.process.logs.context`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.middlewares.user_context import EVENT_CONTEXT_KEY, EventContext
from aiogram.types import TelegramObject, Update

from bot.process.logs.context import conversation_context
from bot.settings.scopes import Scopes
from bot.telegram.addressing import conversation_key, is_group
from bot.telegram.output.pacing import ChatPlace
from bot.telegram.texts import Texts, texts_for
from tools.jail.scope import Scope

__all__ = ["CHAT_CONTEXT", "ChatContext", "ChatContextMiddleware", "ScopeOnce", "chat_context"]

CHAT_CONTEXT = "chat_context"

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class ScopeOnce:
    """The scope a sender works within in a chat, read from `Scopes` at most once.

    Without `Scopes` (a bot built without scopes) it is the whole documents folder.
    """

    __slots__ = ("_chat_id", "_read", "_scope", "_scopes", "_thread_id", "_user_id")

    def __init__(
        self,
        scopes: Scopes | None,
        chat_id: int,
        user_id: int | None,
        thread_id: int | None = None,
    ) -> None:
        self._scopes = scopes
        self._chat_id = chat_id
        self._user_id = user_id
        self._thread_id = thread_id
        self._read = False
        self._scope: Scope | None = None

    async def __call__(self) -> Scope | None:
        """The scope; None for the whole folder."""
        if self._scopes is not None and not self._read:
            self._scope = await self._scopes.for_question(
                self._chat_id, self._user_id, self._thread_id
            )
            self._read = True
        return self._scope


@dataclass(frozen=True, slots=True)
class ChatContext:
    """One update's conversation, its sender's texts, where the bot's replies go, whether the
    chat is a group, and the scope the sender works within there."""

    conversation: str
    texts: Texts = field(repr=False)
    place: ChatPlace
    is_group: bool
    scope: ScopeOnce = field(repr=False, compare=False)

    @property
    def language(self) -> str:
        """The language the sender is answered in (`ru` or `en`)."""
        return self.texts.lang


def chat_context(
    update: Update, event: EventContext, scopes: Scopes | None = None
) -> ChatContext | None:
    """The context of an update in a chat; None for updates outside any chat.

    Replies stay in the forum topic they came from, and each topic is a conversation (and may
    have a scope) of its own; in groups a message is answered as a reply to it, so members can
    tell whose question each answer is for. The scope is the one a question from this sender
    in this chat (and topic) is answered within (SCOPES_FILE, `/scope`).
    """
    chat = event.chat
    if chat is None:
        return None
    group = is_group(chat)
    question = update.message.message_id if group and update.message is not None else None
    return ChatContext(
        conversation=conversation_key(chat, event.user, event.thread_id),
        texts=texts_for(event.user.language_code if event.user else None),
        place=ChatPlace(chat_id=chat.id, thread_id=event.thread_id, reply_to=question),
        is_group=group,
        scope=ScopeOnce(scopes, chat.id, event.user.id if event.user else None, event.thread_id),
    )


class ChatContextMiddleware(BaseMiddleware):
    """Outer update middleware, before access control: puts the `ChatContext` into the data."""

    def __init__(self, scopes: Scopes | None = None) -> None:
        self._scopes = scopes

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        assert isinstance(event, Update)  # registered on updates only
        context = chat_context(event, data[EVENT_CONTEXT_KEY], self._scopes)
        if context is None:
            return await handler(event, data)
        data[CHAT_CONTEXT] = context
        with conversation_context(context.conversation):
            return await handler(event, data)

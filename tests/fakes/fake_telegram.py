"""A fake Telegram Bot API session: the bot's calls never leave the process.

`FakeTelegramSession` records every `TelegramMethod` the bot calls and answers it from a queue
kept per API method (first in, first out), or with a plausible default result. Answers go
through aiogram's own `check_response`, so a queued 400 or 429 raises the real exception.

Before answering, it asks `TelegramRules` whether Telegram would refuse the call (a text too
long, empty or with broken HTML; an edit or deletion of a message that does not exist) and then
answers 400 with Telegram's description; a queued error still comes first.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections import defaultdict, deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot
from aiogram.client.default import Default
from aiogram.client.session.base import BaseSession
from aiogram.exceptions import TelegramNetworkError
from aiogram.methods import SendDocument, SendPhoto, TelegramMethod
from aiogram.methods.base import TelegramType

from tests.fakes.accounts import bot_user_json
from tests.fakes.telegram_html import Formatted
from tests.fakes.telegram_rules import Refused, TelegramRules, check_photo


@dataclass
class Queued:
    """One scripted answer: a result, or an error with Telegram's status and parameters."""

    result: Any = True
    ok: bool = True
    status: int = 200
    description: str | None = None
    parameters: dict[str, Any] | None = None
    network_cause: Exception | None = None

    def content(self) -> str:
        body: dict[str, Any] = {"ok": self.ok}
        if self.ok:
            body["result"] = self.result
        else:
            body["error_code"] = self.status
            body["description"] = self.description
            if self.parameters:
                body["parameters"] = self.parameters
        return json.dumps(body)


@dataclass
class FakeTelegramSession(BaseSession):
    """Records calls, answers from per-method FIFO queues, serves registered file bytes."""

    calls: list[TelegramMethod[Any]] = field(default_factory=list)
    files: dict[str, bytes | OSError] = field(default_factory=dict)
    streamed: dict[str, int] = field(default_factory=dict)
    """Bytes of each file handed to the bot so far (a download may stop early)."""
    hooks: dict[str, Callable[[TelegramMethod[Any]], Awaitable[None]]] = field(
        default_factory=dict
    )
    lost_replies: list[tuple[TelegramMethod[Any], Any]] = field(default_factory=list)
    """Calls Telegram carried out whose answer never reached the bot, with that answer."""
    _queues: dict[str, deque[Queued]] = field(default_factory=lambda: defaultdict(deque))
    _lost: dict[str, deque[Exception]] = field(default_factory=lambda: defaultdict(deque))
    _message_ids: Iterator[int] = field(default_factory=lambda: itertools.count(100))
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    telegram: TelegramRules = field(default_factory=TelegramRules)

    def __post_init__(self) -> None:
        super().__init__()

    # --- scripting -------------------------------------------------------------------------
    def add_result(self, method: str, result: Any = True) -> None:
        """Queue a successful result for the next call of `method` (e.g. "sendMessage")."""
        self._queues[method].append(Queued(result=result))

    def add_error(
        self,
        method: str,
        status: int,
        description: str,
        *,
        retry_after: int | None = None,
    ) -> None:
        """Queue an error answer; `retry_after` makes it a flood-control 429."""
        parameters = {"retry_after": retry_after} if retry_after is not None else None
        self._queues[method].append(
            Queued(ok=False, status=status, description=description, parameters=parameters)
        )

    def add_network_error(self, method: str, cause: Exception) -> None:
        """Fail the next call of `method` the way aiogram's aiohttp session does."""
        self._queues[method].append(Queued(ok=False, network_cause=cause))

    def add_lost_reply(self, method: str, cause: Exception) -> None:
        """Carry out the next call of `method`, then fail it with a network error, as when
        the connection drops after Telegram acted: the bot cannot know it happened."""
        self._lost[method].append(cause)

    def add_file(self, file_path: str, data: bytes) -> None:
        """Serve `data` when the bot downloads `file_path` (see `getFile`)."""
        self.files[file_path] = data

    def add_file_error(self, file_path: str, error: OSError) -> None:
        """Fail the download of `file_path` with `error` after the first chunk arrived."""
        self.files[file_path] = error

    def add_message(self, chat_id: int | str, message_id: int) -> None:
        """Make `message_id` a message in `chat_id` from before the test, so it can be edited."""
        self.telegram.add_message(chat_id, message_id)

    # --- inspection ------------------------------------------------------------------------
    def called(self, method: str) -> list[Any]:
        """Every recorded call of the API method `method`, in order."""
        return [c for c in self.calls if c.__api_method__ == method]

    def sent_texts(self) -> list[str]:
        """Texts of every sendMessage and editMessageText, in call order."""
        return [
            str(getattr(c, "text", ""))
            for c in self.calls
            if c.__api_method__ in {"sendMessage", "editMessageText"}
        ]

    async def wait_for(
        self, predicate: Callable[[FakeTelegramSession], bool], within_s: float = 5.0
    ) -> None:
        """Wait until `predicate(self)` holds after some call; fail after `within_s` seconds."""
        deadline = time.monotonic() + within_s
        while not predicate(self):
            self._changed.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                msg = f"condition not met; calls so far: {[c.__api_method__ for c in self.calls]}"
                raise AssertionError(msg)
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except TimeoutError:
                continue

    # --- BaseSession -----------------------------------------------------------------------
    async def close(self) -> None:
        return None

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 - the signature aiogram defines
    ) -> TelegramType:
        self.calls.append(method)
        self._changed.set()
        name = method.__api_method__
        hook = self.hooks.get(name)
        if hook is not None:
            await hook(method)
        lost = self._lost[name].popleft() if self._lost.get(name) else None
        queued = self._answer(bot, method)
        if queued.network_cause is not None:
            cause = queued.network_cause
            raise TelegramNetworkError(method, f"{type(cause).__name__}: {cause}") from cause
        response = self.check_response(
            bot=bot, method=method, status_code=queued.status, content=queued.content()
        )
        self.telegram.accepted(name, _params(bot, method), response.result)
        if lost is not None:
            self.lost_replies.append((method, response.result))
            raise TelegramNetworkError(method, f"{type(lost).__name__}: {lost}") from lost
        return response.result  # type: ignore[return-value]

    def _answer(self, bot: Bot, method: TelegramMethod[Any]) -> Queued:
        """A queued error, else Telegram's refusal, else the queued or the default result."""
        name = method.__api_method__
        queue = self._queues.get(name)
        if queue and not queue[0].ok:
            return queue.popleft()
        try:
            kept = self.telegram.check(name, _params(bot, method))
            if isinstance(method, SendPhoto):
                check_photo(method.photo)
        except Refused as refused:
            return Queued(ok=False, status=400, description=refused.description)
        return queue.popleft() if queue else Queued(result=self._default(method, kept))

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,  # noqa: ASYNC109 - the signature aiogram defines
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        path = url.split("/file/bot", 1)[1].split("/", 1)[1]
        data = self.files[path]
        if isinstance(data, OSError):
            yield b"partial data"
            raise data
        for start in range(0, len(data), chunk_size):
            chunk = data[start : start + chunk_size]
            self.streamed[path] = self.streamed.get(path, 0) + len(chunk)
            yield chunk

    # --- defaults --------------------------------------------------------------------------
    def _default(self, method: TelegramMethod[Any], kept: Formatted | None) -> Any:
        name = method.__api_method__
        if name in {"sendMessage", "editMessageText"} and kept is not None:
            message_id = (
                getattr(method, "message_id", None)
                if name == "editMessageText"
                else next(self._message_ids)
            )
            chat_id = int(getattr(method, "chat_id", 0) or 0)
            return {
                "message_id": message_id,
                "date": int(time.time()),
                "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup"},
                "from": bot_user_json(),
                "text": kept.text,
                **({"entities": [e.as_json() for e in kept.entities]} if kept.entities else {}),
            }
        if name == "getMe":
            return bot_user_json()
        if isinstance(method, SendDocument):
            return self._document_message(method)
        if isinstance(method, SendPhoto):
            return _photo_message(method)
        if name == "getFile":
            file_id = method.file_id  # type: ignore[attr-defined]
            return {
                "file_id": file_id,
                "file_unique_id": f"u{file_id}",
                "file_path": f"documents/{file_id}",
            }
        if name in {
            "sendChatAction",
            "setMyCommands",
            "deleteMessage",
            "deleteWebhook",
            "setWebhook",
            "deleteMyCommands",
            "setChatMenuButton",
            "answerCallbackQuery",
            "answerInlineQuery",
            "sendMessageDraft",
            "editMessageReplyMarkup",
        }:
            return True
        msg = f"fake Telegram: nothing queued for {name} and no default result"
        raise AssertionError(msg)

    def _document_message(self, method: SendDocument) -> dict[str, Any]:
        """The message a sent document becomes, named as the bot named the file."""
        document = method.document
        name = None if isinstance(document, str) else document.filename
        chat_id = int(method.chat_id)
        message_id = next(self._message_ids)
        return {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup"},
            "from": bot_user_json(),
            "document": {
                "file_id": f"sent{message_id}",
                "file_unique_id": f"usent{message_id}",
                **({"file_name": name} if name else {}),
            },
            **({"caption": method.caption} if method.caption else {}),
        }


def _photo_message(method: SendPhoto) -> dict[str, Any]:
    """The message a sent photo becomes: one size of it, captioned as sent."""
    chat_id = int(method.chat_id)
    return {
        "message_id": 900_000 + len(str(method.caption or "")),
        "date": int(time.time()),
        "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup"},
        "from": bot_user_json(),
        "photo": [{"file_id": "photo", "file_unique_id": "uphoto", "width": 1, "height": 1}],
        **({"caption": method.caption} if method.caption else {}),
    }


def _params(bot: Bot, method: TelegramMethod[Any]) -> dict[str, Any]:
    """The parameters Telegram's rules read, as the request carries them (defaults resolved)."""
    params: dict[str, Any] = {}
    for name in ("chat_id", "message_id", "inline_message_id", "text", "parse_mode", "draft_id"):
        value = getattr(method, name, None)
        params[name] = bot.default[value.name] if isinstance(value, Default) else value
    return params

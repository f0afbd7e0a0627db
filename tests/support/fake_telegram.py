"""A fake Telegram Bot API session, update builders, and a fully wired dispatcher for tests.

`FakeTelegramSession` records every `TelegramMethod` the bot calls and answers it from a queue
kept per API method (first in, first out), or with a plausible default result. Answers go
through aiogram's own `check_response`, so a queued 400 or 429 raises the real exception.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections import defaultdict, deque
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from aiogram import Bot
from aiogram.client.session.base import BaseSession
from aiogram.exceptions import TelegramNetworkError
from aiogram.methods import TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.types import Update

if TYPE_CHECKING:
    from aiogram import Dispatcher

    from bot.config import Settings
    from bot.telegram.tuning import Tuning
    from tests.support.fake_llm import FakeLLM

BOT_ID = 42
BOT_USERNAME = "docs_test_bot"
BOT_TOKEN = "42:TEST_token_for_tests_only_abcdefgh"
USER_ID = 1001
ADMIN_ID = 2002
STRANGER_ID = 3003


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
    hooks: dict[str, Callable[[TelegramMethod[Any]], Awaitable[None]]] = field(
        default_factory=dict
    )
    _queues: dict[str, deque[Queued]] = field(default_factory=lambda: defaultdict(deque))
    _message_ids: Iterator[int] = field(default_factory=lambda: itertools.count(100))
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

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

    def add_file(self, file_path: str, data: bytes) -> None:
        """Serve `data` when the bot downloads `file_path` (see `getFile`)."""
        self.files[file_path] = data

    def add_file_error(self, file_path: str, error: OSError) -> None:
        """Fail the download of `file_path` with `error` after the first chunk arrived."""
        self.files[file_path] = error

    # --- inspection ------------------------------------------------------------------------
    def called(self, method: str) -> list[Any]:
        """Every recorded call of the API method `method`, in order."""
        return [c for c in self.calls if c.__api_method__ == method]

    def sent_texts(self) -> list[str]:
        """Texts of every sendMessage and editMessageText, in call order."""
        return [
            str(c.text)
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
        queue = self._queues.get(name)
        queued = queue.popleft() if queue else Queued(result=self._default(method))
        if queued.network_cause is not None:
            cause = queued.network_cause
            raise TelegramNetworkError(method, f"{type(cause).__name__}: {cause}") from cause
        response = self.check_response(
            bot=bot, method=method, status_code=queued.status, content=queued.content()
        )
        return response.result  # type: ignore[return-value]

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
            yield data[start : start + chunk_size]

    # --- defaults --------------------------------------------------------------------------
    def _default(self, method: TelegramMethod[Any]) -> Any:
        name = method.__api_method__
        if name in {"sendMessage", "editMessageText"}:
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
                "text": method.text,  # type: ignore[attr-defined]
            }
        if name == "getMe":
            return bot_user_json()
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
        }:
            return True
        msg = f"fake Telegram: nothing queued for {name} and no default result"
        raise AssertionError(msg)


def bot_user_json() -> dict[str, Any]:
    """The bot's own `User`, as getMe returns it."""
    return {
        "id": BOT_ID,
        "is_bot": True,
        "first_name": "Docs",
        "username": BOT_USERNAME,
        "can_join_groups": True,
        "can_read_all_group_messages": False,
        "supports_inline_queries": False,
    }


class Updates:
    """Builds real `Update` objects from the JSON Telegram sends, with increasing ids."""

    def __init__(self, bot: Bot) -> None:
        self._bot = bot
        self._update_ids = itertools.count(1)
        self._message_ids = itertools.count(1)

    def user(
        self, user_id: int = USER_ID, language_code: str | None = "ru", **extra: Any
    ) -> dict[str, Any]:
        """A `User` object."""
        user: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": f"User{user_id}"}
        if language_code is not None:
            user["language_code"] = language_code
        user.update(extra)
        return user

    def message_json(
        self,
        text: str | None = None,
        *,
        user_id: int = USER_ID,
        chat_id: int | None = None,
        chat_type: str = "private",
        language_code: str | None = "ru",
        **extra: Any,
    ) -> dict[str, Any]:
        """A `Message` object; `extra` adds any other field (entities, document, sticker…)."""
        chat: dict[str, Any] = {"id": chat_id if chat_id is not None else user_id}
        chat["type"] = chat_type
        if chat_type == "private":
            chat["first_name"] = f"User{user_id}"
        else:
            chat["title"] = "Team"
        message: dict[str, Any] = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": chat,
            "from": self.user(user_id, language_code),
        }
        if text is not None:
            message["text"] = text
        message.update(extra)
        return message

    def message(self, text: str | None = None, **kwargs: Any) -> Update:
        """An update carrying a new message."""
        return self.wrap("message", self.message_json(text, **kwargs))

    def edited(self, text: str, **kwargs: Any) -> Update:
        """An update carrying an edited message."""
        message = self.message_json(text, **kwargs)
        message["edit_date"] = message["date"]
        return self.wrap("edited_message", message)

    def command(self, text: str, **kwargs: Any) -> Update:
        """A message starting with a bot command, with its `bot_command` entity."""
        length = len(text.split(maxsplit=1)[0].encode("utf-16-le")) // 2
        entities = [{"type": "bot_command", "offset": 0, "length": length}]
        return self.message(text, entities=entities, **kwargs)

    def document(
        self,
        file_name: str | None,
        *,
        file_id: str = "doc1",
        file_size: int | None = 10,
        caption: str | None = None,
        **kwargs: Any,
    ) -> Update:
        """A message with a document attached."""
        document: dict[str, Any] = {"file_id": file_id, "file_unique_id": f"u{file_id}"}
        if file_name is not None:
            document["file_name"] = file_name
        if file_size is not None:
            document["file_size"] = file_size
        extra: dict[str, Any] = {"document": document}
        if caption is not None:
            extra["caption"] = caption
        return self.message(None, **extra, **kwargs)

    def wrap(self, kind: str, payload: dict[str, Any]) -> Update:
        """Wrap an event into an `Update` bound to the bot, as polling would deliver it."""
        data = {"update_id": next(self._update_ids), kind: payload}
        return Update.model_validate(data, context={"bot": self._bot})


class RecordedSleep:
    """A stand-in for `asyncio.sleep` that records how long the code wanted to wait."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)


def mention_entity(text: str, mention: str) -> dict[str, Any]:
    """The `mention` entity for `mention` (e.g. "@docs_test_bot") inside `text`."""
    index = text.index(mention)
    offset = len(text[:index].encode("utf-16-le")) // 2
    return {"type": "mention", "offset": offset, "length": len(mention.encode("utf-16-le")) // 2}


@pytest.fixture
def bot_session() -> FakeTelegramSession:
    """The recording Bot API session."""
    return FakeTelegramSession()


@pytest.fixture
def bot(bot_session: FakeTelegramSession) -> Bot:
    """A real `Bot` on the fake session."""
    return Bot(BOT_TOKEN, session=bot_session)


@pytest.fixture
def updates(bot: Bot) -> Updates:
    """Update builder bound to the test bot."""
    return Updates(bot)


@dataclass
class Harness:
    """A running dispatcher with everything a test needs to drive and inspect it."""

    dp: Dispatcher
    bot: Bot
    session: FakeTelegramSession
    llm: FakeLLM
    settings: Settings
    updates: Updates
    startup_calls: list[TelegramMethod[Any]] = field(default_factory=list)
    sleep: RecordedSleep = field(default_factory=RecordedSleep)

    async def feed(self, update: Update) -> None:
        """Deliver one update through the whole middleware and handler stack."""
        await self.dp.feed_update(self.bot, update)


DispatcherFactory = Callable[..., Any]


@pytest.fixture
def make_dispatcher(  # noqa: PLR0917 - fixtures are requested by parameter
    bot: Bot,
    bot_session: FakeTelegramSession,
    fake_llm: FakeLLM,
    sandbox_dir: Path,
    updates: Updates,
    tmp_path: Path,
) -> Callable[..., Any]:
    """Returns `start(**settings)`, an async context manager yielding a started `Harness`.

    The dispatcher comes from the composition root with the real Agent (talking to `fake_llm`
    over HTTP) and the real Toolbox over `sandbox_dir`; edits are not paced so tests run fast.
    """

    @asynccontextmanager
    async def start(tuning: Tuning | None = None, **overrides: Any) -> AsyncIterator[Harness]:
        from bot.services import close_services, open_services  # noqa: PLC0415
        from bot.settings_loader import load_settings  # noqa: PLC0415
        from bot.telegram.app import build_dispatcher  # noqa: PLC0415
        from bot.telegram.tuning import Tuning  # noqa: PLC0415
        from tests.support.fake_llm import make_client  # noqa: PLC0415

        values: dict[str, Any] = {
            "bot_token": BOT_TOKEN,
            "openai_api_key": "sk-test-secret-key-123",
            "openai_base_url": fake_llm.base_url,
            "sandbox_dir": sandbox_dir,
            "data_dir": tmp_path / "data",
            "allowed_user_ids": frozenset({USER_ID}),
            "admin_ids": frozenset({ADMIN_ID}),
            "request_timeout": 5.0,
            "model_max_retries": 0,
        }
        values.update(overrides)
        settings = load_settings(**values)
        services = await open_services(settings, client=make_client(fake_llm))
        await asyncio.wait_for(services.toolbox.wait_ready(), 30)
        sleep = RecordedSleep()
        dp = build_dispatcher(
            settings,
            services,
            tuning=tuning
            or Tuning(
                edit_interval_s=0.0, retry_wait_cap_s=5.0, progress_settle_s=0.5, sleep=sleep
            ),
        )
        await dp.emit_startup(bot=bot, **dp.workflow_data)
        startup_calls = list(bot_session.calls)
        bot_session.calls.clear()
        try:
            yield Harness(dp, bot, bot_session, fake_llm, settings, updates, startup_calls, sleep)
        finally:
            await dp.emit_shutdown(bot=bot, **dp.workflow_data)
            await close_services(services)

    return start


@pytest.fixture
async def harness(make_dispatcher: Callable[..., Any]) -> AsyncIterator[Harness]:
    """A started dispatcher with the default test settings."""
    async with make_dispatcher() as running:
        yield running

"""Fixtures for fault injection through the whole bot.

`model_gate` puts a `TcpGate` between the bot and the fake model server; `client_options`
sets the model client's timeout and retries for the dispatchers `make_dispatcher` builds;
`transcript` follows what each chat ends up showing; `bot_api` is the fake Bot API over HTTP.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.fakes import fake_llm as fake_llm_module
from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.reliability.flaky_bot_api import FlakyBotApi
from tests.reliability.network import TcpGate
from tests.reliability.transcript import Transcript

REQUEST_TIMEOUT_S = 3.0
"""Long enough for a loaded machine (two test processes per core) to answer a question in
time, short enough that a hanging server fails within a test's patience."""


@pytest.fixture
async def model_gate(fake_llm: FakeLLM) -> AsyncIterator[TcpGate]:
    """The bot reaches the fake model through this gate (set up before the dispatcher)."""
    port = urlsplit(fake_llm.base_url).port
    assert port is not None
    gate = TcpGate(port)
    await gate.start()
    fake_llm.base_url = f"{gate.base}/v1"
    try:
        yield gate
    finally:
        await gate.close()


@pytest.fixture
def client_options(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Options of the model client the test dispatcher gets; change them before starting it.

    A short timeout stands in for REQUEST_TIMEOUT, so a hanging server fails fast.
    """
    options: dict[str, Any] = {"timeout": REQUEST_TIMEOUT_S, "max_retries": 0}
    real = fake_llm_module.make_client

    def configured(llm: FakeLLM, **kw: Any) -> Any:
        return real(llm, **{**options, **kw})

    monkeypatch.setattr(fake_llm_module, "make_client", configured)
    return options


@pytest.fixture
async def bot_api() -> AsyncIterator[FlakyBotApi]:
    """The fake Bot API over HTTP, with scriptable failures."""
    api = FlakyBotApi(token=BOT_TOKEN)
    await api.start()
    try:
        yield api
    finally:
        await api.close()


@pytest.fixture
def transcript(bot_session: FakeTelegramSession) -> Transcript:
    """What each chat shows, replayed from the bot's calls and their outcomes."""
    return Transcript(bot_session)


def stored_turns(path: Path, key: str) -> list[tuple[str, list[dict[str, Any]]]]:
    """Every turn of `key`'s conversations as (state, messages), read straight from the file."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        rows = db.execute(
            """
            SELECT t.id, t.state, m.body FROM conversations AS c
            JOIN turns AS t ON t.conversation_id = c.id
            LEFT JOIN messages AS m ON m.turn_id = t.id
            WHERE c.key = ? ORDER BY t.id, m.id
            """,
            (key,),
        ).fetchall()
    turns: dict[int, tuple[str, list[dict[str, Any]]]] = {}
    for turn_id, state, body in rows:
        messages = turns.setdefault(turn_id, (state, []))[1]
        if body is not None:
            messages.append(json.loads(body))
    return list(turns.values())


FAKE_SERVER_LOGGERS = ("aiohttp.access", "aiohttp.server")


def bot_log(records: list[logging.LogRecord]) -> str:
    """Every captured line with its traceback, except the fake servers' own access logs."""
    formatter = logging.Formatter("%(levelname)s %(name)s: %(message)s")
    return "\n".join(
        formatter.format(r) for r in records if not r.name.startswith(FAKE_SERVER_LOGGERS)
    )

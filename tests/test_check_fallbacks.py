"""`check`'s lines for FALLBACK_MODELS: each fallback asked as the main model is, on its own
server with its own key or on the main one, and a wrong name, key or URL failing the check
before the day the main provider is down. Two fake model servers on 127.0.0.1 say which key
each was sent; no key is ever printed or logged."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.entrance.loading import load_settings
from tests.fakes import tool_round
from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fake_transcriptions import unreachable_url
from tests.test_check import check_lines

KEY = "sk-main-secret-key-4711"
FALLBACK_KEY = "sk-fallback-secret-key-0815"
MAIN_MODEL = "gpt-4.1-mini"
SHARED = "model-b"
"""A fallback on the main server, asked with the main key."""
OWN = "model-c"
"""A fallback on a server of its own, with its own key."""


@pytest.fixture
async def fallback_llm() -> AsyncIterator[FakeLLM]:
    """The own server of the fallback OWN; it takes only FALLBACK_KEY."""
    server = FakeLLM()
    server.models = [OWN]
    server.keys = {FALLBACK_KEY}
    async with server:
        yield server


@pytest.fixture
def main_llm(fake_llm: FakeLLM) -> FakeLLM:
    """The main server: MODEL and SHARED, taking only KEY; MODEL calls the tool `check`
    offers it."""
    fake_llm.models = [MAIN_MODEL, SHARED]
    fake_llm.keys = {KEY}
    fake_llm.responder = tool_round.calls_tools
    return fake_llm


Check = Callable[..., Awaitable[tuple[int, dict[str, str]]]]
"""`await check(fallbacks, offline=False, **settings)`: the exit code and each line by its
subject, after checking the lines' order and that no key reached the output or the log."""


@pytest.fixture
def check(
    tmp_path: Path,
    main_llm: FakeLLM,
    bot_api: FakeBotApi,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> Check:
    """`check` with MODEL on the main server, a Telegram that answers, one document, and
    `settings` added."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "vacation.md").write_text("# Vacation\n\n28 days a year.\n", encoding="utf-8")

    async def run(
        fallbacks: list[str], *, offline: bool = False, **values: Any
    ) -> tuple[int, dict[str, str]]:
        defaults: dict[str, Any] = {
            "bot_token": BOT_TOKEN,
            "telegram_api_base": bot_api.base_url,
            "openai_api_key": KEY,
            "openai_base_url": main_llm.base_url,
            "sandbox_dir": docs,
            "data_dir": tmp_path / "data",
            "_env_file": None,
        }
        caplog.set_level(logging.DEBUG)
        code, lines = await check_lines(
            load_settings(**{**defaults, **values}),
            capsys,
            offline=offline,
            secrets=(KEY, FALLBACK_KEY, BOT_TOKEN),
            fallbacks=tuple(fallbacks),
        )
        for key in (KEY, FALLBACK_KEY):  # the fake Bot API's own access log holds the token
            assert key not in caplog.text
        return code, lines

    return run


def _chain(fallback_llm: FakeLLM, own_server: str | None = None) -> dict[str, str]:
    """FALLBACK_MODELS and FALLBACK_API_KEYS for SHARED, then OWN at `own_server`."""
    return {
        "fallback_models": f"{SHARED},{OWN}@{own_server or fallback_llm.base_url}",
        "fallback_api_keys": f"{OWN}={FALLBACK_KEY}",
    }


def _keys_sent(server: FakeLLM) -> list[str]:
    return [headers["Authorization"] for headers in server.listing_headers]


class TestFallbackLines:
    async def test_every_fallback_is_offered(
        self, check: Check, main_llm: FakeLLM, fallback_llm: FakeLLM
    ) -> None:
        code, lines = await check([SHARED, OWN], **_chain(fallback_llm))
        assert code == 0, lines
        assert lines["model server"] == (
            f"✓ model server: {MAIN_MODEL} is offered at {main_llm.base_url}/"
        )
        assert lines[f"fallback {SHARED}"] == (
            f"✓ fallback {SHARED}: {SHARED} is offered at {main_llm.base_url}/"
        )
        assert lines[f"fallback {OWN}"] == (
            f"✓ fallback {OWN}: {OWN} is offered at {fallback_llm.base_url}/"
        )
        assert _keys_sent(main_llm) == [f"Bearer {KEY}"], "one list for MODEL and SHARED"
        assert _keys_sent(fallback_llm) == [f"Bearer {FALLBACK_KEY}"]

    async def test_a_fallback_not_offered_names_what_is(
        self, check: Check, main_llm: FakeLLM, fallback_llm: FakeLLM
    ) -> None:
        fallback_llm.models = ["model-c-2025", "model-d"]
        code, lines = await check(
            ["model-bb", OWN],
            fallback_models=f"model-bb,{OWN}@{fallback_llm.base_url}",
            fallback_api_keys=f"{OWN}={FALLBACK_KEY}",
        )
        assert code == 1
        assert lines["model server"].startswith("✓ model server:")
        assert lines["fallback model-bb"] == (
            f"✗ fallback model-bb: model-bb (in FALLBACK_MODELS) is not offered at "
            f"{main_llm.base_url}/; it offers {MAIN_MODEL}, {SHARED}"
        )
        assert lines[f"fallback {OWN}"] == (
            f"✗ fallback {OWN}: {OWN} (in FALLBACK_MODELS) is not offered at "
            f"{fallback_llm.base_url}/; it offers model-c-2025, model-d"
        )
        assert main_llm.model_listings == 1

    async def test_a_refused_fallback_key_is_named_without_its_value(
        self, check: Check, fallback_llm: FakeLLM
    ) -> None:
        fallback_llm.keys = {"sk-the-key-the-server-wants"}  # echoes the one it refuses
        code, lines = await check([SHARED, OWN], **_chain(fallback_llm))
        assert code == 1
        assert lines[f"fallback {SHARED}"].startswith("✓")
        line = lines[f"fallback {OWN}"]
        assert line.startswith(
            f"✗ fallback {OWN}: the key for {OWN} in FALLBACK_API_KEYS was refused "
            "(HTTP 401: Incorrect API key provided: ***"
        )
        assert line.endswith(f"(at {fallback_llm.base_url}/)")
        assert _keys_sent(fallback_llm) == [f"Bearer {FALLBACK_KEY}"]

    async def test_a_fallback_with_its_own_key_on_the_main_server_is_listed_with_that_key(
        self, check: Check, main_llm: FakeLLM
    ) -> None:
        code, lines = await check(
            [SHARED], fallback_models=SHARED, fallback_api_keys=f"{SHARED}={FALLBACK_KEY}"
        )
        assert code == 1
        assert lines["model server"].startswith("✓")
        assert lines[f"fallback {SHARED}"].startswith(
            f"✗ fallback {SHARED}: the key for {SHARED} in FALLBACK_API_KEYS was refused (HTTP 401"
        )
        assert _keys_sent(main_llm) == [f"Bearer {KEY}", f"Bearer {FALLBACK_KEY}"]

    async def test_an_unreachable_fallback_server_is_named_with_its_url(
        self, check: Check, fallback_llm: FakeLLM
    ) -> None:
        url = unreachable_url()
        code, lines = await check([SHARED, OWN], **_chain(fallback_llm, url))
        assert code == 1
        line = lines[f"fallback {OWN}"]
        assert line.startswith(
            f"✗ fallback {OWN}: cannot reach {url}/: the connection was refused"
        )
        assert line.endswith("; its URL is set in FALLBACK_MODELS")
        assert lines[f"fallback {SHARED}"].startswith("✓")

    async def test_a_fallback_server_without_a_list_answers_one_token(
        self, check: Check, fallback_llm: FakeLLM
    ) -> None:
        fallback_llm.models = None
        fallback_llm.reply_text("ok")
        code, lines = await check([SHARED, OWN], **_chain(fallback_llm))
        assert code == 0, lines
        assert lines[f"fallback {OWN}"] == (
            f"✓ fallback {OWN}: {OWN} answered a one-token request at {fallback_llm.base_url}/ "
            "(the server keeps no list of models)"
        )
        (request,) = fallback_llm.requests
        assert (request["model"], request["max_tokens"]) == (OWN, 1)
        assert fallback_llm.request_headers[0]["Authorization"] == f"Bearer {FALLBACK_KEY}"

    async def test_a_fallback_on_its_own_server_is_never_sent_the_main_key(
        self, check: Check, fallback_llm: FakeLLM
    ) -> None:
        fallback_llm.keys = {KEY}  # a server that would take the main key, were it sent
        code, lines = await check([OWN], fallback_models=f"{OWN}@{fallback_llm.base_url}")
        assert code == 1
        line = lines[f"fallback {OWN}"]
        assert line.startswith(f"✗ fallback {OWN}: {fallback_llm.base_url}/ wants a key (HTTP 401")
        assert line.endswith(f"; give {OWN} one in FALLBACK_API_KEYS")
        (sent,) = _keys_sent(fallback_llm)
        assert KEY not in sent

    async def test_offline_skips_every_fallback(
        self, check: Check, main_llm: FakeLLM, fallback_llm: FakeLLM
    ) -> None:
        code, lines = await check([SHARED, OWN], offline=True, **_chain(fallback_llm))
        assert code == 0, lines
        assert lines[f"fallback {SHARED}"] == f"· fallback {SHARED}: skipped (--offline)"
        assert lines[f"fallback {OWN}"] == f"· fallback {OWN}: skipped (--offline)"
        assert (main_llm.model_listings, fallback_llm.model_listings) == (0, 0)
        assert main_llm.requests == fallback_llm.requests == []

"""Model server faults through the whole bot: real Dispatcher, fake Telegram, fake model.

Each fault strikes the second round of a question (after a tool call was made and answered),
so the failed turn holds a call. The user must get exactly one clear message in their
language, the stored history must stay sendable, and the next question in the chat must work.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

import pytest

from bot.telegram.texts import RUSSIAN
from tests.agent.conftest import assert_request_valid
from tests.fakes.accounts import USER_ID
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.harness import Harness
from tests.reliability.conftest import stored_turns
from tests.reliability.network import Mode, TcpGate
from tests.reliability.transcript import Transcript
from tools import Toolbox
from tools.results import ToolResult

API_KEY = "sk-test-secret-key-123"  # what make_dispatcher configures
CLIENT_KEY = "test-key"  # what the fake model's client sends
FEED_GUARD_S = 30.0


@dataclass(frozen=True)
class Fault:
    """How to break round two, and which of the bot's texts the user should then see."""

    inject: Callable[[FakeLLM, TcpGate], Awaitable[None]]
    shown: str
    through_gate: bool = False  # the fault is the network's: applied once the tool has run
    reaches_server: bool = True  # whether the faulty request arrives at the fake model


async def _queue(llm: FakeLLM, action: Callable[[FakeLLM], None]) -> None:
    action(llm)


def queued(action: Callable[[FakeLLM], None], shown: str) -> Fault:
    return Fault(lambda llm, _: _queue(llm, action), shown)


async def _refuse(_: FakeLLM, gate: TcpGate) -> None:
    await gate.refuse()


async def _drop(_: FakeLLM, gate: TcpGate) -> None:
    await gate.set_mode(Mode.DROP)


async def _cut(llm: FakeLLM, gate: TcpGate) -> None:
    llm.reply_text("Этот ответ оборвётся на середине и не дойдёт целиком.")
    await gate.set_mode(Mode.CUT)


ECHOED_KEY = {"error": {"message": f"Incorrect API key provided: {CLIENT_KEY}", "code": 401}}

FAULTS: dict[str, Fault] = {
    "connection-refused": Fault(
        _refuse, RUSSIAN.error_unavailable, through_gate=True, reaches_server=False
    ),
    "connection-dropped": Fault(
        _drop, RUSSIAN.error_unavailable, through_gate=True, reaches_server=False
    ),
    "reply-cut-mid-body": Fault(_cut, RUSSIAN.error_stream_cut, through_gate=True),
    "timeout": queued(lambda f: f.reply_hang(), RUSSIAN.error_unavailable),
    "401-echoing-the-key": queued(lambda f: f.reply_error(401, ECHOED_KEY), RUSSIAN.error_auth),
    "429-without-retry-after": queued(lambda f: f.reply_error(429), RUSSIAN.error_rate_limited),
    "429-with-retry-after": queued(
        lambda f: f.reply_error(429, headers={"retry-after": "1"}), RUSSIAN.error_rate_limited
    ),
    "500": queued(lambda f: f.reply_error(500), RUSSIAN.error_unavailable),
    "502-html-page": queued(
        lambda f: f.reply_error(502, "<html><body>Bad gateway</body></html>"),
        RUSSIAN.error_unavailable,
    ),
    "200-not-json": queued(
        lambda f: f.reply_raw(b"<html>upstream hiccup</html>", content_type="text/html"),
        RUSSIAN.error_bad_reply,
    ),
    "200-no-choices": queued(
        lambda f: f.reply_raw(json.dumps({"id": "x", "object": "chat.completion"}).encode()),
        RUSSIAN.error_bad_reply,
    ),
    "200-empty-choices": queued(
        lambda f: f.reply_raw(json.dumps({"id": "x", "choices": []}).encode()),
        RUSSIAN.error_bad_reply,
    ),
    "200-error-inside": queued(
        lambda f: f.reply_raw(
            json.dumps({"error": {"message": "overloaded", "code": 503}}).encode()
        ),
        RUSSIAN.error_unavailable,
    ),
}


def break_after_tools(toolbox: Toolbox, monkeypatch: pytest.MonkeyPatch, fault: Any) -> None:
    """Apply a network fault right after the first tool result is ready, once."""
    execute = toolbox.execute
    armed = [True]

    async def then_break(
        name: str, arguments: str | Mapping[str, Any], **options: Any
    ) -> ToolResult:
        result = await execute(name, arguments, **options)
        if armed[0]:
            armed[0] = False
            await fault()
        return result

    monkeypatch.setattr(toolbox, "execute", then_break)


async def ask(harness: Harness, text: str) -> None:
    await asyncio.wait_for(harness.feed(harness.updates.message(text)), FEED_GUARD_S)


def contents(request: Mapping[str, Any]) -> list[Any]:
    return [m.get("content") for m in request["messages"][1:]]


@pytest.mark.usefixtures("client_options")
class TestModelFaultsThroughTheBot:
    @pytest.mark.parametrize("name", sorted(FAULTS))
    async def test_one_clear_message_then_the_chat_works(
        self,
        name: str,
        make_dispatcher: Any,
        model_gate: TcpGate,
        transcript: Transcript,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        fault = FAULTS[name]
        async with make_dispatcher() as harness:
            llm = harness.llm
            llm.reply_text("Ответ на первый вопрос.")
            await ask(harness, "Первый вопрос")
            assert transcript.replies(USER_ID) == ["Ответ на первый вопрос."]

            llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
            if fault.through_gate:
                toolbox = harness.dp.workflow_data["toolbox"]
                break_after_tools(toolbox, monkeypatch, lambda: fault.inject(llm, model_gate))
            else:
                await fault.inject(llm, model_gate)
            await ask(harness, "Второй вопрос")

            replies = transcript.replies(USER_ID)
            assert replies == ["Ответ на первый вопрос.", escape(fault.shown)]
            assert len(llm.requests) == (3 if fault.reaches_server else 2)
            sent_after_fault = " ".join(str(t) for t in harness.session.sent_texts())
            assert CLIENT_KEY not in sent_after_fault
            assert API_KEY not in sent_after_fault

            await model_gate.reopen()
            llm.reply_text("Снова работает.")
            await ask(harness, "Третий вопрос")

            assert transcript.replies(USER_ID)[-1] == "Снова работает."
            assert len(transcript.replies(USER_ID)) == 3
            after = llm.requests[-1]
            assert_request_valid(after)
            assert contents(after) == ["Первый вопрос", "Ответ на первый вопрос.", "Третий вопрос"]
            turns = stored_turns(harness.settings.data_dir / "history.sqlite3", f"chat:{USER_ID}")
            assert [state for state, _ in turns] == ["done", "failed", "done"]
            failed = turns[1][1]
            assert failed[0] == {"role": "user", "content": "Второй вопрос"}
            assert [m["role"] for m in failed] == ["user", "assistant", "tool"]

    async def test_fault_on_the_first_round(
        self, make_dispatcher: Any, model_gate: TcpGate, transcript: Transcript
    ) -> None:
        async with make_dispatcher() as harness:
            await model_gate.refuse()
            await ask(harness, "Вопрос при лежащем сервере")
            assert transcript.replies(USER_ID) == [escape(RUSSIAN.error_unavailable)]
            assert not harness.llm.requests

            await model_gate.reopen()
            harness.llm.reply_text("Сервер вернулся.")
            await ask(harness, "Ещё раз")
            assert transcript.replies(USER_ID)[-1] == "Сервер вернулся."
            assert contents(harness.llm.requests[-1]) == ["Ещё раз"]


class TestRetriesThroughTheBot:
    async def test_429_with_retry_after_is_waited_out_when_a_retry_is_left(
        self, make_dispatcher: Any, client_options: dict[str, Any], transcript: Transcript
    ) -> None:
        client_options["max_retries"] = 1
        async with make_dispatcher() as harness:
            harness.llm.reply_error(429, headers={"retry-after": "0.2"})
            harness.llm.reply_text("Дождался.")
            await ask(harness, "вопрос")
            assert transcript.replies(USER_ID) == ["Дождался."]
            assert len(harness.llm.requests) == 2

    async def test_an_absurd_retry_after_fails_at_once_instead_of_waiting(
        self, make_dispatcher: Any, client_options: dict[str, Any], transcript: Transcript
    ) -> None:
        client_options["max_retries"] = 2
        async with make_dispatcher() as harness:
            harness.llm.reply_error(429, headers={"retry-after": "86400"})
            await ask(harness, "вопрос")
            assert transcript.replies(USER_ID) == [escape(RUSSIAN.error_rate_limited)]
            assert len(harness.llm.requests) == 1

    async def test_500_then_success_is_one_answer(
        self, make_dispatcher: Any, client_options: dict[str, Any], transcript: Transcript
    ) -> None:
        client_options["max_retries"] = 2
        async with make_dispatcher() as harness:
            harness.llm.reply_tool_calls(("search_files", {"query": "отпуск"}))
            harness.llm.reply_error(500)
            harness.llm.reply_error(502, "Bad gateway")
            harness.llm.reply_text("28 дней.")
            await ask(harness, "Сколько дней отпуска?")
            assert transcript.replies(USER_ID) == ["28 дней."]
            assert len(harness.llm.requests) == 4
            assert harness.llm.requests[1] == harness.llm.requests[3]

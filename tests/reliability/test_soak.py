"""Soak: many users asking at once through the real Dispatcher, with a slow and flaky model.

Every question gets exactly one final reply, in the asking chat only; stored histories never
mix; memory does not grow once the bot is warm. The model's behaviour for each question (a tool
round or not, which requests fail and how, the latency) is drawn from a seeded generator keyed
by the question, so the reply each chat must end up with is known in advance.

The normal suite runs a short version. The full size:

    SOAK_USERS=300 SOAK_QUESTIONS=5 PYTHONPATH=. python -m pytest tests/reliability -m soak -q

`SOAK_SEED`, `SOAK_FAILURE_RATE` and `SOAK_MAX_LATENCY_S` change the draw.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import hashlib
import json
import logging
import os
import random
import re
import sqlite3
import tracemalloc
from collections import defaultdict
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import pytest

from bot.telegram.texts import RUSSIAN
from tests.agent.conftest import assert_request_valid
from tests.fakes.fake_llm import Reply, error_reply, text_reply, tool_calls_reply
from tests.reliability.transcript import Transcript

USERS = int(os.environ.get("SOAK_USERS", "40"))
QUESTIONS = int(os.environ.get("SOAK_QUESTIONS", "3"))
SEED = int(os.environ.get("SOAK_SEED", "20260101"))
FAILURE_RATE = float(os.environ.get("SOAK_FAILURE_RATE", "0.05"))
MAX_LATENCY_S = float(os.environ.get("SOAK_MAX_LATENCY_S", "0.02"))
FIRST_USER = 500_000
MEMORY_GROWTH_BOUND = 4 * 1024 * 1024  # bytes traced by Python after warm-up, all rounds
TAG = re.compile(r"u(\d+)n\d+-[0-9a-f]{8}")

FAULTS: dict[str, tuple[Reply, str]] = {
    "500": (error_reply(500), RUSSIAN.error_unavailable),
    "429": (error_reply(429), RUSSIAN.error_rate_limited),
    "not-json": (
        Reply(body=b"<html>oops</html>", content_type="text/html"),
        RUSSIAN.error_bad_reply,
    ),
}


@dataclass(frozen=True)
class Plan:
    """What the model does for one question."""

    token: str
    tool_round: bool
    failure: str | None  # the fault that ends the question, if any
    failing_round: int
    latencies: tuple[float, ...]

    @property
    def reply(self) -> str:
        """The one message the asking chat must end up with."""
        if self.failure is not None:
            return escape(FAULTS[self.failure][1])
        return f"Ответ для {self.token}: 28 дней."


def question_text(user: int, number: int) -> str:
    digest = hashlib.sha256(f"{SEED}:{user}:{number}".encode()).hexdigest()[:8]
    return f"Вопрос u{user}n{number}-{digest}: сколько дней отпуска?"


def plan_for(question: str) -> Plan:
    token = TAG.search(question)
    assert token is not None
    rng = random.Random(f"{SEED}|{question}")
    tool_round = rng.random() < 0.5
    rounds = 2 if tool_round else 1
    failure, failing_round = None, 0
    for number in range(1, rounds + 1):
        if rng.random() < FAILURE_RATE:
            failure, failing_round = rng.choice(sorted(FAULTS)), number
            break
    latencies = tuple(rng.uniform(0, MAX_LATENCY_S) for _ in range(rounds))
    return Plan(token.group(), tool_round, failure, failing_round, latencies)


@dataclass
class SoakModel:
    """The responder: plays each question's plan and checks every request it gets."""

    problems: list[str] = field(default_factory=list)
    requests: int = 0

    async def __call__(self, request: dict[str, Any]) -> Reply:
        self.requests += 1
        messages = request["messages"]
        asking = max(i for i, m in enumerate(messages) if m["role"] == "user")
        question = messages[asking]["content"]
        plan = plan_for(question)
        self._check(request, question)
        round_number = 1 + sum(m["role"] == "assistant" for m in messages[asking:])
        if plan.failure is not None and round_number == plan.failing_round:
            reply = FAULTS[plan.failure][0]
        elif plan.tool_round and round_number == 1:
            reply = tool_calls_reply(
                ("search_files", {"query": "отпуск"}), id_prefix=f"c{plan.token}"
            )
        else:
            reply = text_reply(plan.reply)
        latency = plan.latencies[min(round_number, len(plan.latencies)) - 1]
        return dataclasses.replace(reply, delay_s=latency)

    def _check(self, request: dict[str, Any], question: str) -> None:
        (owner,) = owners(question)
        for message in request["messages"]:
            content = message.get("content")
            strangers = owners(content) - {owner} if isinstance(content, str) else set()
            if strangers:
                self.problems.append(f"the request for u{owner} carries text of {strangers}")
        try:
            assert_request_valid(request)
        except AssertionError as exc:
            self.problems.append(f"invalid request for u{owner}: {exc}")


def owners(text: str) -> set[int]:
    """The users whose question tokens appear in `text`."""
    return {int(found.group(1)) for found in TAG.finditer(text)}


def stored_by_key(path: Path) -> dict[str, list[tuple[str, str, str]]]:
    """(turn state, role, content) of every stored message, per conversation key."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        rows = db.execute(
            "SELECT c.key, t.state, m.body FROM conversations AS c "
            "JOIN turns AS t ON t.conversation_id = c.id "
            "JOIN messages AS m ON m.turn_id = t.id ORDER BY t.id, m.id"
        ).fetchall()
    stored: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for key, state, body in rows:
        message = json.loads(body)
        stored[key].append((state, message["role"], str(message.get("content") or "")))
    return stored


def traced_now() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


@pytest.mark.soak
class TestSoak:
    async def test_users_times_questions_with_a_flaky_model(
        self,
        make_dispatcher: Any,
        client_options: dict[str, Any],
        transcript: Transcript,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        # Hundreds of questions at once on a small machine (with tracemalloc on) can keep a
        # reply waiting for seconds; the load must not turn into timeouts the plan did not ask for.
        client_options["timeout"] = 120.0
        # Captured log records would hold every failure's traceback and count as growth.
        caplog.set_level(logging.ERROR)
        users = list(range(FIRST_USER, FIRST_USER + USERS))
        model = SoakModel()
        async with make_dispatcher(allowed_user_ids=frozenset(users)) as harness:
            harness.llm.responder = model
            tracemalloc.start()
            try:
                warm = 0
                for number in range(1, QUESTIONS + 1):
                    batch = [
                        harness.updates.message(question_text(u, number), user_id=u) for u in users
                    ]
                    await asyncio.wait_for(
                        asyncio.gather(*(harness.feed(update) for update in batch)), 300
                    )
                    for user in users:
                        expected = plan_for(question_text(user, number)).reply
                        assert transcript.replies(user) == [expected], (user, number)
                    assert transcript.chats() <= set(users)
                    transcript.clear()
                    harness.session.calls.clear()
                    harness.llm.requests.clear()
                    harness.llm.request_headers.clear()
                    if number == 1:
                        warm = traced_now()
                grown = traced_now() - warm
            finally:
                tracemalloc.stop()

        assert model.problems == []
        assert model.requests >= USERS * QUESTIONS
        stored = stored_by_key(harness.settings.data_dir / "history.sqlite3")
        assert set(stored) == {f"chat:{u}" for u in users}
        for user in users:
            messages = stored[f"chat:{user}"]
            found = set().union(*(owners(content) for _, _, content in messages))
            assert found == {user}, (user, found)
            questions = [c for _, role, c in messages if role == "user"]
            assert questions == [question_text(user, n) for n in range(1, QUESTIONS + 1)]
        if QUESTIONS > 1:
            assert grown < MEMORY_GROWTH_BOUND, f"grew by {grown} bytes after warm-up"

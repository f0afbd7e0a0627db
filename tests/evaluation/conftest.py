"""Fixtures for `python -m bot eval`: settings on the fake model server, a file of questions
over the test documents, and model servers that answer right, wrong, or not at all."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from bot.entrance.loading import load_settings
from bot.settings.model import Settings
from tests.fakes.fake_llm import FakeLLM, Reply, error_reply, text_reply, tool_calls_reply

CHARLOTTE = "документы/рецепт_шарлотки.txt"
VACATION = "hr/отпуск.md"
LEASE = "документы/договор_аренды.md"

QUESTIONS_TOML = """
[[questions]]
question = "Сколько сахара в шарлотке?"
must = ['re:\\b1\\s+стакан']
must_not = ["2 стакана"]
cite = ["документы/рецепт_шарлотки.txt"]

[[questions]]
question = "Сколько дней отпуска в году?"
must = ["28", "календарных"]
cite = ["hr/отпуск.md"]

[[questions]]
question = "Какой срок аренды офиса?"
must = ["11 месяцев", "одиннадцать месяцев"]
must_mode = "any"
cite = ["документы/договор_аренды.md"]
"""

RIGHT: Mapping[str, tuple[str, str]] = {
    "Сколько сахара в шарлотке?": (CHARLOTTE, "> сахар - 1 стакан\n\nНужен 1 стакан сахара."),
    "Сколько дней отпуска в году?": (
        VACATION,
        "> Ежегодный оплачиваемый отпуск — 28 календарных дней.\n\n28 календарных дней.",
    ),
    "Какой срок аренды офиса?": (LEASE, "> Срок аренды: 11 месяцев.\n\nОдиннадцать месяцев."),
}
"""Each question, the file a right model reads for it, and its answer quoting that file."""

WRONG = "> сахар - 2 стакана\n\nНужно 2 стакана, 30 дней и год."
"""What a wrong model answers to everything, without reading: one invented quote."""

Respond = Callable[[dict[str, Any]], Awaitable[Reply | None]]


def question_of(request: Mapping[str, Any]) -> str:
    """The user's question in a request of the agent."""
    return str(next(m for m in request["messages"] if m["role"] == "user")["content"])


def has_read(request: Mapping[str, Any]) -> bool:
    """Whether the request carries a tool's result (the file was read)."""
    return any(m["role"] == "tool" for m in request["messages"])


def models_server(**by_model: Respond) -> Respond:
    """A responder that answers each request as the model it names would."""

    async def respond(request: dict[str, Any]) -> Reply | None:
        return await by_model[request["model"]](request)

    return respond


async def right(request: dict[str, Any]) -> Reply:
    """Reads the file the question is about, then answers with its facts and a true quote."""
    path, answer = RIGHT[question_of(request)]
    if not has_read(request):
        return tool_calls_reply(("read_file", {"path": path}))
    return text_reply(answer)


async def wrong(request: dict[str, Any]) -> Reply:
    """Answers at once, wrongly, with an invented quote."""
    del request
    return text_reply(WRONG)


async def broken(request: dict[str, Any]) -> Reply:
    """The model server fails every time."""
    del request
    return error_reply(500)


@pytest.fixture
def questions_file(tmp_path: Path) -> Path:
    path = tmp_path / "questions.toml"
    path.write_text(QUESTIONS_TOML, encoding="utf-8")
    return path


@pytest.fixture
def eval_settings(fake_llm: FakeLLM, sandbox_dir: Path, tmp_path: Path) -> Settings:
    """The bot's settings on the fake model server and the test documents."""
    return load_settings(
        openai_api_key="sk-test-secret-key-123",
        openai_base_url=fake_llm.base_url,
        sandbox_dir=sandbox_dir,
        data_dir=tmp_path / "data",
        model="right",
        model_max_retries=0,
        request_timeout=5.0,
    )


def read_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data

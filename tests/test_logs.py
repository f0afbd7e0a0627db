"""LOG_FORMAT=json: one object per line, with the conversation and question where known."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.entrance.loading import load_settings
from bot.process.logs import setup_logging
from bot.process.logs.context import question_context
from bot.settings.model import Settings
from bot.settings.secret_values import log_secrets, secret_fields
from tests.fakes.accounts import BOT_TOKEN, USER_ID
from tests.fakes.fixtures import DispatcherFactory

API_KEY = "sk-test-secret-key-123"  # the harness's OPENAI_API_KEY


@contextmanager
def json_logging(
    level: str = "INFO", secrets: Sequence[str] = (BOT_TOKEN, API_KEY)
) -> Iterator[io.StringIO]:
    """The root logger writing JSON lines to a buffer, as `python -m bot` sets it up; the
    test runner's own handlers are put back afterwards."""
    root = logging.getLogger()
    handlers, old_level = list(root.handlers), root.level
    stream = io.StringIO()
    try:
        setup_logging(level, secrets=secrets, log_format="json", stream=stream)
        yield stream
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(old_level)


def parsed(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


class TestJsonLines:
    def test_each_line_is_an_object_with_time_level_logger_and_message(self) -> None:
        with json_logging() as stream:
            logging.getLogger("bot.example").warning("%d documents, «%s»", 3, "привет")
            try:
                raise ValueError("broken")
            except ValueError:
                logging.getLogger("bot.example").exception("it failed")
        first, second = parsed(stream)
        assert first["level"] == "WARNING"
        assert first["logger"] == "bot.example"
        assert first["message"] == "3 documents, «привет»"
        moment = datetime.fromisoformat(first["time"].replace("Z", "+00:00"))
        assert moment.utcoffset() == UTC.utcoffset(None)
        assert first["time"].endswith("Z")
        assert "conversation" not in first
        assert "ValueError: broken" in second["exception"]

    def test_secrets_are_masked_in_messages_arguments_and_traces(self) -> None:
        with json_logging() as stream:
            log = logging.getLogger("bot.example")
            log.warning("calling /bot%s/getMe", BOT_TOKEN)
            try:
                raise RuntimeError(f"key {API_KEY} refused")
            except RuntimeError:
                log.exception("model call failed")
        text = stream.getvalue()
        assert BOT_TOKEN not in text
        assert API_KEY not in text
        assert len(parsed(stream)) == 2
        assert "***" in parsed(stream)[0]["message"]

    def test_lines_inside_a_question_carry_its_conversation_and_id(self) -> None:
        with json_logging() as stream:
            with question_context("chat:7", 12):
                logging.getLogger("bot.example").info("inside")
            logging.getLogger("bot.example").info("outside")
        inside, outside = parsed(stream)
        assert (inside["conversation"], inside["question"]) == ("chat:7", 12)
        assert "conversation" not in outside
        assert "question" not in outside


class TestDuringAQuestion:
    async def test_a_question_through_the_dispatcher_is_logged_with_its_conversation(
        self, make_dispatcher: DispatcherFactory
    ) -> None:
        async with make_dispatcher() as harness:
            harness.llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
            harness.llm.reply_text("Один стакан сахара.")
            with json_logging() as stream:
                await harness.feed(harness.updates.message("Сколько сахара в шарлотке?"))
                logging.getLogger("bot.example").info("token %s", BOT_TOKEN)
        lines = parsed(stream)
        key = f"chat:{USER_ID}"
        answered = [line for line in lines if line["message"].startswith("answered in")]
        assert len(answered) == 1
        assert answered[0]["conversation"] == key
        question = answered[0]["question"]
        assert isinstance(question, int)
        tool = [line for line in lines if line["message"].startswith("tool search_files took")]
        assert [(line["conversation"], line["question"]) for line in tool] == [(key, question)]
        delivered = [line for line in lines if "delivered" in line["message"]]
        assert delivered
        assert all(line["conversation"] == key for line in delivered)
        assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
        text = stream.getvalue()
        assert BOT_TOKEN not in text
        assert API_KEY not in text


DISTINCT = {
    "bot_token": "987654321:AAF-distinct_bot_token_value_xyz",
    "openai_api_key": "sk-distinct-main-key-1111",
    "fallback_api_keys": "model-c=sk-distinct-fallback-key-2222",
    "embedding_api_key": "sk-distinct-embedding-key-3333",
    "transcribe_api_key": "sk-distinct-transcribe-key-4444",
    "database_url": "postgresql://bot:Pg-distinct-pass-5555@db.example/docs",
    "webhook_secret": "distinct_webhook_secret_6666",
}
"""A value of each secret field that its rules accept; a field added later gets its own."""
PIECES = ["sk-distinct-fallback-key-2222", "Pg-distinct-pass-5555", "Proxy-distinct-pass-7777"]
"""Secrets held inside a value: a fallback model's key, a database's and a proxy's password."""


def _typed_secret(name: str) -> bool:
    return "SecretStr" in str(Settings.model_fields[name].annotation)


def _every_secret_set(tmp_path: Path) -> Settings:
    """Settings with every SecretStr field set to a value of its own."""
    values = {
        name: DISTINCT.get(name, f"distinct-{name}-value-9999")
        for name in Settings.model_fields
        if _typed_secret(name)
    }
    return load_settings(
        data_dir=tmp_path / "data",
        fallback_models="model-c@https://fallback.example/v1",
        embedding_model="text-embedding-3-small",
        rerank_url="https://rerank.example/rerank",
        openai_base_url="https://bot:Proxy-distinct-pass-7777@proxy.example/v1",
        webhook_url="https://bot.example.org/telegram",
        **values,
    )


class TestSecretsFromTheSettings:
    def test_every_secret_field_and_the_secrets_inside_them_are_masked(
        self, tmp_path: Path
    ) -> None:
        settings = _every_secret_set(tmp_path)
        values = [
            getattr(settings, name).get_secret_value()
            for name in Settings.model_fields
            if _typed_secret(name)
        ]
        assert len(values) >= len(DISTINCT)
        with json_logging(secrets=log_secrets(settings)) as stream:
            log = logging.getLogger("bot.example")
            for value in [*values, *PIECES]:
                log.warning("calling https://api.example/%s/x", value)
        text = stream.getvalue()
        for value in [*values, *PIECES]:
            assert value not in text
        assert text.count("***") == len(values + PIECES)

    def test_a_field_said_to_be_secret_is_typed_so_and_found(self) -> None:
        """A secret added as a plain str would escape the masking: its description says
        "(secret)", as every secret's does, so it is caught here."""
        described = {
            name
            for name, field in Settings.model_fields.items()
            if "(secret)" in (field.description or "")
        }
        typed = {name for name in Settings.model_fields if _typed_secret(name)}
        assert described == typed
        assert set(secret_fields()) == typed

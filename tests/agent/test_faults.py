"""Model server failures: a typed error, a valid history, and a next question that works."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.agent import (
    AgentError,
    ContextOverflow,
    HistoryStore,
    ModelAuthError,
    ModelBadReply,
    ModelRateLimited,
    ModelUnavailable,
)
from bot.agent.llm import ModelClient, build_client
from bot.agent.model_errors import is_context_error
from bot.agent.tokens import TokenCounter
from bot.entrance.loading import load_settings
from tests.agent.conftest import AgentFactory, assert_request_valid
from tests.fakes.fake_llm import FakeLLM

CONTEXT_ERROR = {
    "error": {
        "message": "This model's maximum context length is 8192 tokens. However, your messages "
        "resulted in 9000 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }
}


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


Fault = Callable[[FakeLLM], None]

FAULTS: dict[str, tuple[Fault, type[AgentError]]] = {
    "500": (lambda f: f.reply_error(500), ModelUnavailable),
    "502-html": (lambda f: f.reply_error(502, "<html>Bad gateway</html>"), ModelUnavailable),
    "429-no-retry-after": (lambda f: f.reply_error(429), ModelRateLimited),
    "401": (lambda f: f.reply_error(401, {"error": {"message": "bad key"}}), ModelAuthError),
    "403": (lambda f: f.reply_error(403), ModelAuthError),
    "404-model": (lambda f: f.reply_error(404), ModelAuthError),
    "400-other": (lambda f: f.reply_error(400), ModelBadReply),
    "timeout": (lambda f: f.reply_hang(), ModelUnavailable),
    "not-json": (
        lambda f: f.reply_raw(b"<html>oops</html>", content_type="text/html"),
        ModelBadReply,
    ),
    "json-not-object": (lambda f: f.reply_raw(b"[1, 2]"), ModelBadReply),
    "no-choices": (
        lambda f: f.reply_raw(json.dumps({"id": "x", "object": "chat.completion"}).encode()),
        ModelBadReply,
    ),
    "empty-choices": (
        lambda f: f.reply_raw(json.dumps({"id": "x", "choices": []}).encode()),
        ModelBadReply,
    ),
    "choice-without-message": (
        lambda f: f.reply_raw(json.dumps({"choices": [{"index": 0}]}).encode()),
        ModelBadReply,
    ),
    "error-inside-200": (
        lambda f: f.reply_raw(
            json.dumps({"error": {"message": "upstream overloaded", "code": 503}}).encode()
        ),
        ModelUnavailable,
    ),
    "truncated-json": (lambda f: f.reply_raw(b'{"choices": [{"mess'), ModelBadReply),
}


class TestServerFaults:
    @pytest.mark.parametrize("fault", sorted(FAULTS))
    async def test_fault_then_recovery(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, history: HistoryStore, fault: str
    ) -> None:
        inject, expected = FAULTS[fault]
        agent = make_agent(timeout=1.0 if fault == "timeout" else 5.0)
        fake_llm.reply_text("Раньше")
        await agent.ask("chat:1", "Первый вопрос")
        fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
        inject(fake_llm)

        with pytest.raises(expected) as raised:
            await agent.ask("chat:1", "Второй вопрос")

        assert "test-key" not in str(raised.value)
        assert await history.turn_states("chat:1") == ["done", "failed"]
        fake_llm.reply_text("Снова работает")
        answer = await agent.ask("chat:1", "Третий вопрос")
        assert answer.text == "Снова работает"
        sent = fake_llm.requests[-1]
        assert_request_valid(sent)
        assert [m["content"] for m in sent["messages"][1:]] == [
            "Первый вопрос",
            "Раньше",
            "Третий вопрос",
        ]

    async def test_refused_connection(self, fake_llm: FakeLLM, make_agent: AgentFactory) -> None:
        agent = make_agent(base_url=f"http://127.0.0.1:{closed_port()}/v1")

        with pytest.raises(ModelUnavailable, match="cannot reach"):
            await agent.ask("chat:1", "вопрос")

    async def test_a_refused_connection_is_unreachable_not_slow_over_the_bots_transport(
        self, tmp_path: Path
    ) -> None:
        url = f"http://127.0.0.1:{closed_port()}/v1"
        settings = load_settings(
            openai_api_key="sk-refused-secret-123",
            openai_base_url=url,
            request_timeout=60.0,
            model_max_retries=0,
            sandbox_dir=tmp_path / "docs",
            data_dir=tmp_path / "data",
        )
        client = build_client(settings)
        try:
            with pytest.raises(ModelUnavailable) as caught:
                await ModelClient(client, "m", 100).complete(
                    [{"role": "user", "content": "?"}], None
                )
        finally:
            await client.close()
        text = str(caught.value)
        assert "within" not in text
        assert f"cannot reach the model server at {url}" in text
        assert "refused" in text
        assert "sk-refused-secret-123" not in text

    async def test_a_timeout_names_the_limit(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_hang()
        with pytest.raises(ModelUnavailable, match=r"within 0\.2s"):
            await make_agent(timeout=0.2).ask("chat:1", "вопрос")

    async def test_429_with_retry_after_is_retried_by_the_client(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_error(429, headers={"retry-after": "0.01"})
        fake_llm.reply_text("После паузы")

        answer = await make_agent(max_retries=1).ask("chat:1", "вопрос")

        assert answer.text == "После паузы"
        assert len(fake_llm.requests) == 2

    async def test_429_that_persists_is_rate_limited(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        for _ in range(2):
            fake_llm.reply_error(429, headers={"retry-after": "0.01"})

        with pytest.raises(ModelRateLimited):
            await make_agent(max_retries=1).ask("chat:1", "вопрос")
        assert len(fake_llm.requests) == 2

    async def test_500_is_retried_by_the_client(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_error(500, headers={"retry-after-ms": "5"})
        fake_llm.reply_text("Со второго раза")

        answer = await make_agent(max_retries=1).ask("chat:1", "вопрос")

        assert answer.text == "Со второго раза"

    async def test_the_api_key_never_reaches_the_error(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_error(401, {"error": {"message": "Incorrect API key provided: test-key"}})

        with pytest.raises(ModelAuthError) as raised:
            await make_agent().ask("chat:1", "вопрос")
        assert "test-key" not in str(raised.value)
        assert "***" in str(raised.value)

    async def test_max_completion_tokens_is_used_when_the_server_asks(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        fake_llm.reply_error(
            400,
            {
                "error": {
                    "message": "Unsupported parameter: 'max_tokens' is not supported with "
                    "this model. Use 'max_completion_tokens' instead.",
                    "code": "unsupported_parameter",
                }
            },
        )
        fake_llm.reply_text("ok")
        fake_llm.reply_text("ok again")
        agent = make_agent()

        await agent.ask("chat:1", "вопрос")
        await agent.ask("chat:1", "ещё")

        assert fake_llm.requests[0]["max_tokens"] == 1_000
        assert fake_llm.requests[1]["max_completion_tokens"] == 1_000
        assert "max_tokens" not in fake_llm.requests[2]


class TestContextLengthErrors:
    @pytest.mark.parametrize(
        "text",
        [
            "This model's maximum context length is 8192 tokens",
            "context_length_exceeded",
            "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096",
            "prompt is too long: 210000 tokens > 200000 maximum",
            "too many tokens in the request",
            "the input is too long for the requested model",
            "trying to keep the first 5000 tokens when context the overflows. However, "
            "the model is loaded with context length of only 4096 tokens",
            "the request exceeds the available context size, try increasing it",
            "The input token count (1048577) exceeds the maximum number of tokens allowed",
        ],
    )
    def test_provider_texts_are_recognised(self, text: str) -> None:
        assert is_context_error(text)

    def test_unrelated_errors_are_not(self) -> None:
        assert not is_context_error("Invalid 'messages[1].role': unknown role")

    async def fill_history(self, fake_llm: FakeLLM, make_agent: AgentFactory) -> None:
        agent = make_agent()
        for n in range(6):
            fake_llm.reply_tool_calls(("search_files", {"query": f"слово {n}"}))
            fake_llm.reply_text(f"ответ {n} " + "длинный текст ответа " * 40)
            await agent.ask("chat:1", f"вопрос {n}")
        fake_llm.requests.clear()

    async def test_trims_harder_and_retries_once(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        await self.fill_history(fake_llm, make_agent)
        fake_llm.reply_error(400, CONTEXT_ERROR)
        fake_llm.reply_text("Поместилось")

        agent = make_agent()

        answer = await agent.ask("chat:1", "последний вопрос")

        assert answer.text == "Поместилось"
        first, retry = fake_llm.requests
        counter = TokenCounter()
        refused = counter.messages(first["messages"]) + counter.tools(first["tools"])
        retried = counter.messages(retry["messages"]) + counter.tools(retry["tools"])
        assert retried <= refused * 0.6
        assert retry["messages"][-1]["content"] == "последний вопрос"
        assert_request_valid(retry)

        fake_llm.reply_text("И дальше помещается")
        await agent.ask("chat:1", "следующий вопрос")
        later = fake_llm.requests[-1]
        assert counter.messages(later["messages"]) + counter.tools(later["tools"]) < refused

    async def test_second_context_error_is_context_overflow(
        self, fake_llm: FakeLLM, make_agent: AgentFactory, history: HistoryStore
    ) -> None:
        await self.fill_history(fake_llm, make_agent)
        fake_llm.reply_error(400, CONTEXT_ERROR)
        fake_llm.reply_error(400, CONTEXT_ERROR)
        agent = make_agent()

        with pytest.raises(ContextOverflow):
            await agent.ask("chat:1", "последний вопрос")

        assert len(fake_llm.requests) == 2
        assert (await history.turn_states("chat:1"))[-1] == "failed"
        fake_llm.reply_text("ok")
        assert (await agent.ask("chat:1", "снова")).text == "ok"

    async def test_a_question_too_large_for_the_window_fails_before_sending(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        agent = make_agent(context_window=4_096, max_output_tokens=2_000)

        with pytest.raises(ContextOverflow):
            await agent.ask("chat:1", "слово " * 3_000)
        assert fake_llm.requests == []

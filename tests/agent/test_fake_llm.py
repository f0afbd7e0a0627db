"""The fake model server speaks enough of the OpenAI protocol for the real SDK."""

from __future__ import annotations

import openai
import pytest

from tests.fakes.fake_llm import FakeLLM, make_client


class TestFakeLLM:
    async def test_text_reply_parses_and_request_is_recorded(self, fake_llm: FakeLLM) -> None:
        fake_llm.reply_text("привет", usage=(12, 3))
        client = make_client(fake_llm)
        reply = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )
        assert reply.choices[0].message.content == "привет"
        assert reply.model == "m"
        assert reply.usage is not None
        assert reply.usage.prompt_tokens == 12
        assert fake_llm.requests[0]["messages"] == [{"role": "user", "content": "hi"}]
        assert fake_llm.request_headers[0]["Authorization"] == "Bearer test-key"

    async def test_tool_calls_carry_unique_ids_and_json_arguments(self, fake_llm: FakeLLM) -> None:
        fake_llm.reply_tool_calls(("search_files", {"query": "шарлотка"}), ("list_files", {}))
        fake_llm.reply_tool_calls(("list_files", {}))
        client = make_client(fake_llm)
        first = await client.chat.completions.create(model="m", messages=[])
        second = await client.chat.completions.create(model="m", messages=[])
        calls = first.choices[0].message.tool_calls or []
        assert [c.function.name for c in calls] == ["search_files", "list_files"]  # type: ignore[union-attr]
        assert calls[0].function.arguments == '{"query": "шарлотка"}'  # type: ignore[union-attr]
        ids = {c.id for c in calls} | {c.id for c in second.choices[0].message.tool_calls or []}
        assert len(ids) == 3

    async def test_empty_queue_answers_500(self, fake_llm: FakeLLM) -> None:
        client = make_client(fake_llm)
        with pytest.raises(openai.InternalServerError, match="no reply queued"):
            await client.chat.completions.create(model="m", messages=[])

    async def test_hang_ends_in_client_timeout(self, fake_llm: FakeLLM) -> None:
        fake_llm.reply_hang()
        client = make_client(fake_llm, timeout=0.2)
        with pytest.raises(openai.APITimeoutError):
            await client.chat.completions.create(model="m", messages=[])

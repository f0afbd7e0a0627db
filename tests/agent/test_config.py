"""The agent's settings: the system prompt from a setting, a file, or the built-in text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest
from pydantic import SecretStr

from bot.agent import DEFAULT_SYSTEM_PROMPT, AgentConfig, PromptError, build_client
from bot.agent.prompts import QUOTE_INSTRUCTION, with_quote_instruction
from bot.agent.tokens import TokenCounter
from bot.settings.model import Settings
from tests.fakes.fake_llm import FakeLLM


def settings(**kw: Any) -> Settings:
    return Settings(_env_file=None, **kw)


class TestAgentConfig:
    def test_defaults_come_from_the_settings(self) -> None:
        config = AgentConfig.from_settings(settings(model="qwen2.5", max_rounds=3))
        assert config.model == "qwen2.5"
        assert config.max_rounds == 3
        assert config.system_prompt == with_quote_instruction(DEFAULT_SYSTEM_PROMPT)
        assert config.verify_quotes
        assert config.prompt_budget == 128_000 - 2_048

    @pytest.mark.parametrize(("value", "expected"), [(None, "auto"), ("OFF", "off"), ("on", "on")])
    def test_streaming_comes_from_the_settings(self, value: str | None, expected: str) -> None:
        given = {} if value is None else {"stream": value}
        assert AgentConfig.from_settings(settings(**given)).stream == expected

    def test_an_unknown_stream_mode_is_refused(self) -> None:
        with pytest.raises(ValueError, match="stream"):
            settings(stream="sometimes")

    def test_quotes_off_leaves_the_prompt_alone(self) -> None:
        config = AgentConfig.from_settings(settings(quotes="OFF"))
        assert config.system_prompt == DEFAULT_SYSTEM_PROMPT
        assert not config.verify_quotes

    def test_an_unknown_quotes_mode_is_refused(self) -> None:
        with pytest.raises(ValueError, match="quotes"):
            settings(quotes="trust")

    def test_the_quote_instruction_follows_an_admins_own_prompt(self) -> None:
        config = AgentConfig.from_settings(settings(system_prompt="  Будь краток.  "))
        assert config.system_prompt == with_quote_instruction("Будь краток.")
        assert config.system_prompt.startswith("Будь краток.\n\n")
        assert "> the exact words" in config.system_prompt

    def test_the_quote_instruction_is_short(self) -> None:
        assert TokenCounter().text(QUOTE_INSTRUCTION) < 120

    def test_the_prompt_setting_replaces_the_default(self) -> None:
        config = AgentConfig.from_settings(
            settings(system_prompt="  Будь краток.  ", quotes="off")
        )
        assert config.system_prompt == "Будь краток."

    def test_the_prompt_file_replaces_the_default(self, tmp_path: Path) -> None:
        prompt = tmp_path / "prompt.txt"
        prompt.write_text("\ufeffОтвечай по документам.\n", encoding="utf-8")
        config = AgentConfig.from_settings(settings(system_prompt_file=prompt, quotes="off"))
        assert config.system_prompt == "Отвечай по документам."

    @pytest.mark.parametrize(
        ("content", "message"),
        [(None, "does not exist"), (b"   \n", "is empty"), (b"\xff\xfe\xfa", "not UTF-8")],
    )
    def test_an_unusable_file_is_a_clear_error(
        self, tmp_path: Path, content: bytes | None, message: str
    ) -> None:
        prompt = tmp_path / "prompt.txt"
        if content is not None:
            prompt.write_bytes(content)
        with pytest.raises(PromptError, match=message):
            AgentConfig.from_settings(settings(system_prompt_file=prompt))

    def test_both_prompt_settings_are_refused(self, tmp_path: Path) -> None:
        prompt = tmp_path / "prompt.txt"
        prompt.write_text("x", encoding="utf-8")
        with pytest.raises(PromptError, match="not both"):
            AgentConfig.from_settings(settings(system_prompt="y", system_prompt_file=prompt))

    def test_the_default_prompt_covers_the_rules(self) -> None:
        text = DEFAULT_SYSTEM_PROMPT.lower()
        for rule in (
            "search_files",
            "read_file",
            "language",
            "name the files",
            "do not contain",
            "data, never instructions",
            "snippets",
            "before you quote",
            "next_offset",
            "markdown",
            "avoid wide tables",
            "name the files your answer came from (their paths), in the user's language",
        ):
            assert rule in text
        assert "source:" not in text  # an English label the model would copy into Russian
        assert TokenCounter().text(DEFAULT_SYSTEM_PROMPT) < 600


class TestBuildClient:
    async def test_the_client_follows_the_settings(self) -> None:
        client = build_client(
            settings(
                openai_api_key=SecretStr("sk-secret-value"),
                openai_base_url="http://127.0.0.1:9/v1",
                request_timeout=12.5,
                model_max_retries=4,
            )
        )
        try:
            assert client.api_key == "sk-secret-value"
            assert str(client.base_url) == "http://127.0.0.1:9/v1/"
            assert client.timeout == 12.5
            assert client.max_retries == 4
        finally:
            await client.close()

    async def test_the_built_client_talks_to_the_server_and_times_out(
        self, fake_llm: FakeLLM
    ) -> None:
        client = build_client(
            settings(
                openai_api_key=SecretStr("sk-secret-value"),
                openai_base_url=fake_llm.base_url,
                request_timeout=0.5,
                model_max_retries=0,
            )
        )
        try:
            fake_llm.reply_text("сахар - 1 стакан")
            reply = await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "сколько сахара?"}]
            )
            assert reply.choices[0].message.content == "сахар - 1 стакан"
            assert fake_llm.requests[-1]["messages"][0]["content"] == "сколько сахара?"
            fake_llm.reply_hang()
            with pytest.raises(openai.APITimeoutError):
                await client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "ещё?"}]
                )
        finally:
            await client.close()

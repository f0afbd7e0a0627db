"""The model's SDK client is built at the first model call, not when the services start.

The composition root hands the agent and the transcriber one `LazyClient`: a bot that starts,
serves updates that need no model and stops never builds it (nor closes what it never built),
and the first question builds it once, with the settings' server and key.
"""

from __future__ import annotations

from pathlib import Path

from bot.agent.client import LazyClient
from bot.entrance.loading import load_settings
from bot.services import close_services, open_services
from tests.fakes.fake_llm import FakeLLM, make_client

KEY = "sk-lazy-client-key-0042"


async def test_services_open_and_close_without_building_the_client(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    settings = load_settings(
        data_dir=tmp_path / "data",
        sandbox_dir=tmp_path / "docs",
        openai_api_key=KEY,
        openai_base_url=fake_llm.base_url,
    )
    services = await open_services(settings)
    try:
        assert not services.client.built
        assert services.transcriber is not None  # voice is on, still no client
    finally:
        await close_services(services)
    assert not services.client.built
    assert fake_llm.requests == []


async def test_the_first_question_builds_the_client_from_the_settings(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    settings = load_settings(
        data_dir=tmp_path / "data",
        sandbox_dir=tmp_path / "docs",
        openai_api_key=KEY,
        openai_base_url=fake_llm.base_url,
        model_max_retries=0,
    )
    services = await open_services(settings)
    try:
        fake_llm.reply_text("Двадцать восемь дней.")
        answer = await services.agent.ask("chat:7", "Сколько дней отпуска?")
        assert answer.text == "Двадцать восемь дней."
        assert services.client.built
        client = services.client.get()
        assert str(client.base_url).rstrip("/") == fake_llm.base_url.rstrip("/")
        assert client.api_key == KEY
        fake_llm.reply_text("Да.")
        await services.agent.ask("chat:7", "Точно?")
        assert services.client.get() is client  # built once
    finally:
        await close_services(services)
    assert client.is_closed()


async def test_voice_shares_the_chat_client_built_on_its_first_use(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    settings = load_settings(
        data_dir=tmp_path / "data",
        sandbox_dir=tmp_path / "docs",
        openai_api_key=KEY,
        openai_base_url=fake_llm.base_url,
        model_max_retries=0,
    )
    services = await open_services(settings)
    try:
        assert services.transcriber is not None
        fake_llm.speech.reply_text("привет")
        text = await services.transcriber.transcribe(b"OggS", "v.ogg", "audio/ogg", "ru")
        assert text == "привет"
        assert services.client.built  # the transcriber built the shared client
        assert fake_llm.speech.uploads[0].headers["Authorization"] == f"Bearer {KEY}"
    finally:
        await close_services(services)
    assert services.client.get().is_closed()


async def test_an_injected_client_is_used_as_it_is(fake_llm: FakeLLM) -> None:
    client = make_client(fake_llm)
    holder = LazyClient.of(client)
    assert holder.built
    assert holder.get() is client
    await holder.close()
    assert client.is_closed()

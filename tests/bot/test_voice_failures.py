"""Voice questions that cannot be heard: told plainly, and the conversation stays as it was.

Also where transcriptions go: the chat model's server by default, or a separate speech server
with its own key, which never shows up in logs or replies.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fake_transcriptions import unreachable_url
from tests.fakes.harness import Harness

SPEECH_KEY = "sk-speech-server-secret-777"


def _sent(harness: Harness) -> list[str]:
    return [str(m.text) for m in harness.session.called("sendMessage")]


def _user_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


def _serve(harness: Harness, file_id: str = "voice1", data: bytes = b"OggS") -> None:
    harness.session.add_file(f"documents/{file_id}", data)


async def _next_question_starts_clean(harness: Harness) -> None:
    """A typed question after the failure is answered, with nothing of the recording before."""
    harness.llm.reply_text("Ответ.")
    await harness.feed(harness.updates.message("вопрос текстом"))
    assert _user_messages(harness.llm.requests[-1]) == ["вопрос текстом"]
    assert harness.session.sent_texts()[-1] == "Ответ."


def _separate(server: FakeLLM) -> dict[str, Any]:
    """Settings that send transcriptions to `server`, with their own key."""
    return {"transcribe_base_url": server.base_url, "transcribe_api_key": SPEECH_KEY}


@pytest.fixture
async def speech_server() -> AsyncIterator[FakeLLM]:
    """A second fake server, standing in for a separate speech-to-text server."""
    async with FakeLLM() as server:
        yield server


class TestRefusedBeforeDownload:
    async def test_too_long_is_refused_without_downloading(self, harness: Harness) -> None:
        await harness.feed(harness.updates.voice(duration=301))
        [refusal] = _sent(harness)
        assert "5:01" in refusal
        assert "5:00" in refusal
        assert not harness.session.called("getFile")
        assert not harness.llm.speech.uploads
        assert not harness.llm.requests

    async def test_over_the_transcription_limit_is_refused(self, harness: Harness) -> None:
        await harness.feed(harness.updates.audio(file_size=26 * 1024 * 1024))
        [refusal] = _sent(harness)
        assert "25 МБ" in refusal
        assert not harness.session.called("getFile")

    async def test_telegram_refusing_a_big_file_is_told(self, harness: Harness) -> None:
        harness.session.add_error("getFile", 400, "Bad Request: file is too big")
        await harness.feed(harness.updates.audio(file_size=None))
        [refusal] = _sent(harness)
        assert "20 МБ" in refusal
        assert not harness.llm.speech.uploads

    async def test_voice_off_gets_a_note_and_makes_no_calls(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(transcribe_model="") as harness:
            await harness.feed(harness.updates.voice())
            assert "выключены" in _sent(harness)[0]
            assert not harness.session.called("getFile")
            assert not harness.llm.speech.uploads
            assert not harness.llm.requests
            await harness.feed(harness.updates.command("/help"))
            assert "голосом" not in _sent(harness)[-1]


class TestTranscriptionFails:
    async def test_server_down_is_told_and_costs_nothing(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(transcribe_base_url=unreachable_url()) as harness:
            _serve(harness)
            await harness.feed(harness.updates.voice())
            [told] = _sent(harness)
            assert "Сервер распознавания речи не работает или недоступен" in told
            assert not harness.llm.requests
            await _next_question_starts_clean(harness)

    async def test_key_refused(
        self,
        make_dispatcher: Any,
        speech_server: FakeLLM,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        settings = _separate(speech_server)
        async with make_dispatcher(**settings) as harness:
            _serve(harness)
            speech_server.speech.reply_error(401, f"Incorrect API key provided: {SPEECH_KEY}")
            with caplog.at_level(logging.DEBUG):
                await harness.feed(harness.updates.voice())
            [told] = _sent(harness)
            assert "отклонил ключ" in told
            assert speech_server.speech.uploads[0].headers["Authorization"] == (
                f"Bearer {SPEECH_KEY}"
            )
            assert SPEECH_KEY not in caplog.text
            assert all(SPEECH_KEY not in text for text in harness.session.sent_texts())
            await _next_question_starts_clean(harness)

    async def test_nothing_recognised(self, harness: Harness) -> None:
        _serve(harness)
        harness.llm.speech.reply_text(" … ")
        await harness.feed(harness.updates.voice())
        [told] = _sent(harness)
        assert "Не удалось разобрать слова" in told
        assert not harness.llm.requests
        await _next_question_starts_clean(harness)

    async def test_overloaded_server(self, harness: Harness) -> None:
        _serve(harness)
        harness.llm.speech.reply_error(429)
        await harness.feed(harness.updates.voice())
        assert "перегружен" in _sent(harness)[0]

    async def test_too_large_for_the_speech_server(self, harness: Harness) -> None:
        _serve(harness)
        harness.llm.speech.reply_error(413, "Maximum content size limit exceeded")
        await harness.feed(harness.updates.voice())
        assert "25 МБ" in _sent(harness)[0]
        assert not harness.llm.requests

    async def test_download_cut_off(self, harness: Harness) -> None:
        harness.session.add_file_error("documents/voice1", ConnectionResetError("reset"))
        await harness.feed(harness.updates.voice())
        assert "скачать запись" in _sent(harness)[0]
        assert not harness.llm.speech.uploads


class TestSeparateServer:
    async def test_transcriptions_go_to_their_own_server(
        self, make_dispatcher: Any, speech_server: FakeLLM
    ) -> None:
        settings = _separate(speech_server)
        async with make_dispatcher(transcribe_model="whisper-large-v3", **settings) as harness:
            _serve(harness)
            speech_server.speech.reply_text("Где рецепт?")
            harness.llm.reply_text("В папке документы.")
            await harness.feed(harness.updates.voice())

            [upload] = speech_server.speech.uploads
            assert upload.model == "whisper-large-v3"
            assert not harness.llm.speech.uploads
            assert not speech_server.requests, "chat stays with the model server"
            assert _user_messages(harness.llm.requests[0]) == ["Где рецепт?"]
            assert harness.session.sent_texts()[-1] == "В папке документы."

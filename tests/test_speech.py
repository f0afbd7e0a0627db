"""Speech to text: what is sent to the transcription endpoint, what comes back, what fails how."""

from __future__ import annotations

from typing import Any

import pytest

from bot.agent import (
    ContextOverflow,
    ModelAuthError,
    ModelBadReply,
    ModelRateLimited,
    ModelUnavailable,
)
from bot.agent.speech.transcription import Transcriber, build_transcriber
from bot.settings.model import Settings
from tests.fakes.fake_llm import FakeLLM, make_client
from tests.fakes.fake_transcriptions import unreachable_url

KEY = "sk-speech-secret-key-42"


def _settings(**values: Any) -> Settings:
    return Settings(openai_api_key="sk-chat-key-0001", **values)


class TestTranscribe:
    async def test_sends_the_audio_and_returns_the_text(self, fake_llm: FakeLLM) -> None:
        fake_llm.speech.reply_text("  Сколько дней отпуска?  ")
        transcriber = Transcriber(make_client(fake_llm), "whisper-1")

        text = await transcriber.transcribe(b"OggS-voice", "voice.ogg", "audio/ogg", "ru")

        assert text == "Сколько дней отпуска?"
        [upload] = fake_llm.speech.uploads
        assert upload.model == "whisper-1"
        assert upload.filename == "voice.ogg"
        assert upload.content_type == "audio/ogg"
        assert upload.data == b"OggS-voice"
        assert upload.language == "ru"
        assert not fake_llm.requests, "nothing went to the chat endpoint"

    async def test_no_hint_lets_the_server_detect_the_language(self, fake_llm: FakeLLM) -> None:
        fake_llm.speech.reply_text("hello")
        transcriber = Transcriber(make_client(fake_llm), "whisper-1")
        assert await transcriber.transcribe(b"x", "a.mp3", "audio/mpeg", None) == "hello"
        assert fake_llm.speech.uploads[0].language is None

    async def test_plain_text_reply_is_read_too(self, fake_llm: FakeLLM) -> None:
        fake_llm.speech.reply_plain("просто текст\n")
        transcriber = Transcriber(make_client(fake_llm), "whisper-1")
        assert await transcriber.transcribe(b"x", "v.ogg", "audio/ogg", None) == "просто текст"

    async def test_json_without_text_is_a_bad_reply(self, fake_llm: FakeLLM) -> None:
        fake_llm.speech.reply_plain('{"segments": []}')
        transcriber = Transcriber(make_client(fake_llm), "whisper-1")
        with pytest.raises(ModelBadReply):
            await transcriber.transcribe(b"x", "v.ogg", "audio/ogg", None)


class TestFailures:
    @pytest.mark.parametrize(
        ("status", "family"),
        [
            (401, ModelAuthError),
            (403, ModelAuthError),
            (429, ModelRateLimited),
            (500, ModelUnavailable),
            (503, ModelUnavailable),
        ],
    )
    async def test_status_errors_keep_the_model_families(
        self, fake_llm: FakeLLM, status: int, family: type[Exception]
    ) -> None:
        fake_llm.speech.reply_error(status, f"refused {KEY}")
        transcriber = Transcriber(make_client(fake_llm, api_key=KEY), "whisper-1")
        with pytest.raises(family) as caught:
            await transcriber.transcribe(b"x", "v.ogg", "audio/ogg", None)
        assert KEY not in str(caught.value)
        assert "transcription" in str(caught.value)

    async def test_unknown_model_names_the_transcription_settings(self, fake_llm: FakeLLM) -> None:
        fake_llm.speech.reply_error(404, "model not found")
        transcriber = Transcriber(make_client(fake_llm), "no-such-model")
        with pytest.raises(ModelAuthError, match="TRANSCRIBE_MODEL"):
            await transcriber.transcribe(b"x", "v.ogg", "audio/ogg", None)

    async def test_recording_too_large_for_the_server(self, fake_llm: FakeLLM) -> None:
        fake_llm.speech.reply_error(413, "Maximum content size limit (26214400) exceeded")
        transcriber = Transcriber(make_client(fake_llm), "whisper-1")
        with pytest.raises(ContextOverflow) as caught:
            await transcriber.transcribe(b"x", "v.ogg", "audio/ogg", None)
        assert caught.value.kind == "too_long"

    async def test_server_not_running_is_unavailable(self, fake_llm: FakeLLM) -> None:
        settings = _settings(transcribe_base_url=unreachable_url(), model_max_retries=0)
        transcriber = build_transcriber(settings, make_client(fake_llm))
        assert transcriber is not None
        try:
            with pytest.raises(ModelUnavailable, match="refused"):
                await transcriber.transcribe(b"x", "v.ogg", "audio/ogg", None)
        finally:
            await transcriber.close()


class TestBuild:
    async def test_empty_model_turns_voice_off(self, fake_llm: FakeLLM) -> None:
        settings = _settings(transcribe_model=" ")
        assert not settings.voice_enabled
        assert build_transcriber(settings, make_client(fake_llm)) is None

    async def test_reuses_the_chat_client_for_the_same_server(self, fake_llm: FakeLLM) -> None:
        chat = make_client(fake_llm)
        settings = _settings(openai_base_url=fake_llm.base_url, transcribe_base_url=None)
        transcriber = build_transcriber(settings, chat)
        assert transcriber is not None
        fake_llm.speech.reply_text("да")
        assert await transcriber.transcribe(b"x", "v.ogg", "audio/ogg", None) == "да"
        await transcriber.close()
        assert not chat.is_closed(), "the shared client belongs to the chat model"

    async def test_a_separate_server_and_key_get_their_own_client(self, fake_llm: FakeLLM) -> None:
        settings = _settings(
            openai_base_url="http://127.0.0.1:9/v1",
            transcribe_base_url=fake_llm.base_url,
            transcribe_api_key=KEY,
        )
        assert settings.transcribe_url == fake_llm.base_url
        transcriber = build_transcriber(settings, make_client(fake_llm))
        assert transcriber is not None
        assert transcriber.base_url.rstrip("/") == fake_llm.base_url
        fake_llm.speech.reply_text("да")
        try:
            assert await transcriber.transcribe(b"x", "v.ogg", "audio/ogg", None) == "да"
        finally:
            await transcriber.close()
        assert fake_llm.speech.uploads[0].headers["Authorization"] == f"Bearer {KEY}"

    def test_defaults_follow_the_chat_model(self) -> None:
        settings = _settings(openai_base_url="http://127.0.0.1:11434/v1")
        assert settings.transcribe_model == "whisper-1"
        assert settings.max_voice_seconds == 300
        assert settings.transcribe_url == "http://127.0.0.1:11434/v1"
        assert settings.transcribe_key == settings.openai_api_key
        assert "sk-chat-key-0001" not in repr(settings)

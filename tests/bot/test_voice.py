"""Voice questions end to end: a recording is heard, shown, and answered like a typed question.

The real Dispatcher and Agent run against the fake Bot API (which serves the recording's
bytes) and the fake model server (which transcribes and answers).
"""

from __future__ import annotations

from typing import Any

from aiogram.types import Update

from tests.fakes.accounts import bot_user_json
from tests.fakes.harness import Harness

GROUP_ID = -100_777
QUESTION = "Сколько сахара нужно для шарлотки?"
HEARD = f"🎤 <i>«{QUESTION}»</i>"


def _sent(harness: Harness) -> list[str]:
    return [str(m.text) for m in harness.session.called("sendMessage")]


def _user_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


def _serve(harness: Harness, file_id: str, data: bytes) -> None:
    """Let the bot download `data` as the file `file_id` (the fake getFile's path for it)."""
    harness.session.add_file(f"documents/{file_id}", data)


def _bot_message(chat_id: int, chat_type: str = "supergroup") -> dict[str, Any]:
    return {
        "message_id": 7,
        "date": 1,
        "chat": {"id": chat_id, "type": chat_type, "title": "Team"},
        "from": bot_user_json(),
        "text": "Прошлый ответ",
    }


class TestAnsweredLikeText:
    async def test_voice_is_heard_shown_and_answered(self, harness: Harness) -> None:
        llm = harness.llm
        _serve(harness, "voice1", b"OggS-recorded-speech")
        llm.speech.reply_text(f" {QUESTION} ")
        llm.reply_text("Нужен **один стакан** сахара.")

        await harness.feed(harness.updates.voice())

        [upload] = llm.speech.uploads
        assert upload.model == "whisper-1"
        assert upload.data == b"OggS-recorded-speech"
        assert (upload.filename, upload.content_type) == ("voice.ogg", "audio/ogg")
        assert upload.language == "ru"
        assert _user_messages(llm.requests[0]) == [QUESTION]
        sent = _sent(harness)
        assert sent[0] == HEARD, "what was heard comes first"
        assert sent[1] == "🤔 Думаю…"
        assert "<b>один стакан</b>" in harness.session.sent_texts()[-1]

    async def test_the_transcript_goes_into_the_history(self, harness: Harness) -> None:
        llm = harness.llm
        _serve(harness, "voice1", b"OggS")
        llm.speech.reply_text(QUESTION)
        llm.reply_text("Один стакан.")
        await harness.feed(harness.updates.voice())
        llm.reply_text("Три яйца.")

        await harness.feed(harness.updates.message("А яиц сколько?"))

        messages = llm.requests[1]["messages"]
        assert _user_messages(llm.requests[1]) == [QUESTION, "А яиц сколько?"]
        assert {"role": "assistant", "content": "Один стакан."}.items() <= messages[-2].items()
        assert "OggS" not in str(messages)

    async def test_audio_file(self, harness: Harness) -> None:
        llm = harness.llm
        _serve(harness, "audio1", b"ID3-mp3")
        llm.speech.reply_text("How much sugar?")
        llm.reply_text("One glass.")

        await harness.feed(harness.updates.audio(language_code="en"))

        [upload] = llm.speech.uploads
        assert (upload.filename, upload.content_type) == ("audio.mp3", "audio/mpeg")
        assert upload.language is None, "only Russian is hinted; other speech is detected"
        assert _sent(harness)[0] == "🎤 <i>“How much sugar?”</i>"
        assert harness.session.sent_texts()[-1] == "One glass."

    async def test_video_note(self, harness: Harness) -> None:
        llm = harness.llm
        _serve(harness, "note1", b"mp4-round-video")
        llm.speech.reply_text(QUESTION)
        llm.reply_text("Один стакан.")

        await harness.feed(harness.updates.video_note())

        [upload] = llm.speech.uploads
        assert (upload.filename, upload.content_type) == ("video_note.mp4", "video/mp4")
        assert _user_messages(llm.requests[0]) == [QUESTION]
        assert _sent(harness)[0] == HEARD

    async def test_long_transcript_is_shown_cut_and_escaped(self, harness: Harness) -> None:
        llm = harness.llm
        _serve(harness, "voice1", b"OggS")
        spoken = "<b>а</b> & " + "очень " * 100
        llm.speech.reply_text(spoken)
        llm.reply_text("Ответ.")

        await harness.feed(harness.updates.voice())

        heard = _sent(harness)[0]
        assert heard.startswith("🎤 <i>«&lt;b&gt;а&lt;/b&gt; &amp; очень")
        assert heard.endswith("…»</i>")
        assert len(heard) < 360
        assert _user_messages(llm.requests[0]) == [spoken.strip()], "the model gets it whole"

    async def test_help_mentions_voice(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/help"))
        assert "голосом" in _sent(harness)[-1]


class TestGroups:
    def _voice(self, harness: Harness, **extra: Any) -> Update:
        return harness.updates.voice(chat_id=GROUP_ID, chat_type="supergroup", **extra)

    async def test_voice_not_replying_to_the_bot_is_left_alone(self, harness: Harness) -> None:
        _serve(harness, "voice1", b"OggS")
        await harness.feed(self._voice(harness))
        assert not harness.session.calls
        assert not harness.llm.speech.uploads

    async def test_voice_replying_to_the_bot_is_answered(self, harness: Harness) -> None:
        llm = harness.llm
        _serve(harness, "voice1", b"OggS")
        llm.speech.reply_text("а подробнее?")
        llm.reply_text("Подробнее: …")

        await harness.feed(self._voice(harness, reply_to_message=_bot_message(GROUP_ID)))

        content = _user_messages(llm.requests[0])[-1]
        assert content.endswith("\n\nа подробнее?")
        assert "> Прошлый ответ" in content
        heard = harness.session.called("sendMessage")[0]
        assert heard.text == "🎤 <i>«а подробнее?»</i>"
        assert heard.chat_id == GROUP_ID
        assert heard.reply_parameters is not None, "in groups the heard line replies to the voice"


class TestRateLimit:
    async def test_a_voice_question_counts_and_a_refusal_does_not(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(rate_limit_per_hour=1) as harness:
            llm = harness.llm
            await harness.feed(harness.updates.voice(duration=3_600))
            _serve(harness, "voice1", b"OggS")
            llm.speech.reply_text(QUESTION)
            llm.reply_text("Один стакан.")
            await harness.feed(harness.updates.voice())
            assert len(llm.requests) == 1, "the refused recording did not use up the hour"

            await harness.feed(harness.updates.message("Ещё вопрос"))

            assert len(llm.requests) == 1
            assert "много вопросов" in _sent(harness)[-1]

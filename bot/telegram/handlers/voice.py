"""Voice questions: a voice message, an audio file or a video note, heard and then answered.

The recording is fetched into memory (size-bounded), sent to the speech server, and what it
heard is shown in a short reply first, so a mishearing is plain to see; then the transcript
is asked exactly like a typed question (`Asker.answer`), so history, progress, streaming and
sources behave the same. A recording that cannot be heard is told plainly and costs nothing:
no turn is stored and the conversation stays as it was. Refusals that need no work (voice off,
too long) are not counted as questions by the rate limit; everything else is.

In groups a recording is for the bot only when it replies to one of the bot's messages: a voice
message cannot mention anyone.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiogram import Bot, F, Router
from aiogram.enums import ChatAction, ContentType
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message

from bot.agent import AgentError
from bot.agent.speech.transcription import Transcriber
from bot.settings.model import Settings
from bot.storage.usage import Tokens
from bot.telegram.addressing import has_words, replies_to_bot
from bot.telegram.context import ChatContext
from bot.telegram.downloads import DownloadError, read_file_bytes
from bot.telegram.handlers.filters import Matches
from bot.telegram.handlers.questions import Asker
from bot.telegram.handlers.replies import say
from bot.telegram.recordings import Recording, language_hint, recording_of
from bot.telegram.texts import Texts
from bot.telegram.tuning import Tuning

log = logging.getLogger(__name__)

_FLAGS = {"question": True}
_RECORDINGS = frozenset({ContentType.VOICE, ContentType.AUDIO, ContentType.VIDEO_NOTE})
MAX_RECORDING_MB = 25
"""The most OpenAI transcribes in one request (Telegram's own Bot API hands bots 20 MB)."""
_TELEGRAM_MB = 20
_MB = 1024 * 1024
_DOWNLOAD_TIMEOUT_S = 120


def make_router() -> Router:
    """Recordings addressed to the bot: refused when voice is off or they are too long,
    else heard and answered."""
    router = Router(name="voice")
    router.message.filter(Matches(F.content_type.in_(_RECORDINGS)), for_bot)
    router.message.register(on_voice_off, voice_off)
    router.message.register(on_too_long, too_long)
    router.message.register(on_recording, flags=_FLAGS)
    return router


async def for_bot(message: Message, bot: Bot, chat_context: ChatContext) -> bool:
    """Private chats always; in groups only a reply to one of the bot's messages."""
    return not chat_context.is_group or replies_to_bot(message, await bot.me())


async def voice_off(message: Message, transcriber: Transcriber | None) -> bool:
    """TRANSCRIBE_MODEL is empty: there is nobody to hear the recording."""
    return transcriber is None


async def too_long(message: Message, settings: Settings) -> bool:
    """The recording plays longer than MAX_VOICE_SECONDS (known before any download)."""
    recording = recording_of(message)
    return recording is not None and recording.duration > settings.max_voice_seconds


async def on_voice_off(
    message: Message, *, bot: Bot, tuning: Tuning, chat_context: ChatContext
) -> None:
    """Say that voice questions are off, and to type instead."""
    await say(bot, chat_context, chat_context.texts.voice_off, tuning)


async def on_too_long(
    message: Message, *, bot: Bot, settings: Settings, tuning: Tuning, chat_context: ChatContext
) -> None:
    """Refuse a recording over MAX_VOICE_SECONDS without downloading it."""
    recording = recording_of(message)
    assert recording is not None  # the router's filter let only recordings through
    log.info(
        "refused a %d s %s in %s: over MAX_VOICE_SECONDS (%d)",
        recording.duration,
        recording.kind,
        chat_context.conversation,
        settings.max_voice_seconds,
    )
    text = chat_context.texts.voice_too_long_reply(recording.duration, settings.max_voice_seconds)
    await say(bot, chat_context, text, tuning)


async def on_recording(
    message: Message,
    *,
    bot: Bot,
    asker: Asker,
    transcriber: Transcriber,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """Fetch, transcribe, show what was heard, then answer it like a typed question."""
    recording = recording_of(message)
    assert recording is not None  # the router's filter let only recordings through
    transcript = await _hear(
        bot,
        message,
        recording=recording,
        transcriber=transcriber,
        tuning=tuning,
        chat_context=chat_context,
        heard=asker.heard(message, transcriber.model),
    )
    if transcript is None:
        return
    texts = chat_context.texts
    if not has_words(transcript):
        log.info("nothing recognised in a %s in %s", recording.kind, chat_context.conversation)
        await say(bot, chat_context, texts.voice_empty, tuning)
        return
    log.info(
        "heard a %d s %s in %s: %d characters",
        recording.duration,
        recording.kind,
        chat_context.conversation,
        len(transcript),
    )
    await say(bot, chat_context, texts.heard_line(transcript), tuning)
    await asker.answer(bot, message, chat_context, text=transcript)


async def _hear(
    bot: Bot,
    message: Message,
    *,
    recording: Recording,
    transcriber: Transcriber,
    tuning: Tuning,
    chat_context: ChatContext,
    heard: Callable[[Tokens], Awaitable[None]] | None = None,
) -> str | None:
    """The transcript, or None once the user has been told why there is none; `heard` gets
    the tokens it took."""
    texts, conversation = chat_context.texts, chat_context.conversation
    limit = MAX_RECORDING_MB * _MB
    if recording.file_size is not None and recording.file_size > limit:
        log.info(
            "refused a %s of %d bytes in %s", recording.kind, recording.file_size, conversation
        )
        await say(bot, chat_context, texts.voice_too_big_reply(MAX_RECORDING_MB), tuning)
        return None
    await _typing(bot, chat_context)
    try:
        data = await read_file_bytes(bot, recording.file_id, limit, timeout_s=_DOWNLOAD_TIMEOUT_S)
    except DownloadError as exc:
        log.warning(
            "%s in %s not downloaded (%s): %s", recording.kind, conversation, exc.kind, exc
        )
        await say(bot, chat_context, _download_refusal(texts, exc.kind), tuning)
        return None
    try:
        return await transcriber.transcribe(
            data, recording.filename, recording.mime, language_hint(message), heard=heard
        )
    except AgentError as exc:
        log.warning(
            "%s in %s not transcribed (%s): %s", recording.kind, conversation, exc.kind, exc
        )
        refusal = (
            texts.voice_too_big_reply(MAX_RECORDING_MB)
            if exc.kind == "too_long"
            else texts.voice_error(exc.kind)
        )
    except Exception:  # an unexpected failure still owes the user a reply; the trace is logged
        log.exception("%s in %s failed unexpectedly", recording.kind, conversation)
        refusal = texts.voice_failed
    await say(bot, chat_context, refusal, tuning)
    return None


def _download_refusal(texts: Texts, kind: str) -> str:
    """What a user is told when the recording could not be fetched."""
    if kind == "too_big":
        return texts.voice_too_big_reply(MAX_RECORDING_MB)
    if kind == "too_big_for_server":
        return texts.voice_too_big_reply(_TELEGRAM_MB)
    return texts.voice_download_failed


async def _typing(bot: Bot, chat_context: ChatContext) -> None:
    """Show "typing…" while the recording is fetched and heard (best effort)."""
    place = chat_context.place
    try:
        await bot.send_chat_action(
            chat_id=place.chat_id, action=ChatAction.TYPING, message_thread_id=place.thread_id
        )
    except TelegramAPIError as exc:
        log.debug("could not show typing in chat %d: %s", place.chat_id, exc)

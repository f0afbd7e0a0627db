"""What a voice question carries: the recording of a voice message, an audio file or a video note.

The three reach the bot as different Telegram objects; the voice handler needs one shape: the
file to fetch, how long it plays (checked against MAX_VOICE_SECONDS before any download), and
the name and type the speech server is sent. Servers tell the audio format by the file name's
extension, so the name is made from the type rather than taken from the sender.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aiogram.types import Message

__all__ = ["Recording", "language_hint", "recording_of"]

# The types Telegram gives recordings, as the extensions speech servers read them by.
_EXTENSIONS = {
    "audio/ogg": "ogg",
    "audio/opus": "ogg",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
    "audio/mp4": "m4a",
    "audio/m4a": "m4a",
    "audio/x-m4a": "m4a",
    "audio/aac": "m4a",
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/flac": "flac",
    "audio/x-flac": "flac",
    "audio/webm": "webm",
    "video/mp4": "mp4",
    "video/webm": "webm",
}
_EXTENSION = re.compile(r"\.([A-Za-z0-9]{2,5})$")


@dataclass(frozen=True, slots=True)
class Recording:
    """One recording to transcribe: `kind` is `voice`, `audio` or `video_note`."""

    kind: str
    file_id: str
    duration: int
    file_size: int | None
    filename: str
    mime: str


def recording_of(message: Message) -> Recording | None:
    """The recording a message carries; None for any other message."""
    if message.voice is not None:
        voice = message.voice
        mime = voice.mime_type or "audio/ogg"
        name = f"voice.{_EXTENSIONS.get(mime, 'ogg')}"
        return Recording("voice", voice.file_id, voice.duration, voice.file_size, name, mime)
    if message.audio is not None:
        audio = message.audio
        mime = audio.mime_type or "audio/mpeg"
        name = f"audio.{_extension(audio.file_name, mime)}"
        return Recording("audio", audio.file_id, audio.duration, audio.file_size, name, mime)
    if message.video_note is not None:
        note = message.video_note
        return Recording(
            "video_note",
            note.file_id,
            note.duration,
            note.file_size,
            "video_note.mp4",
            "video/mp4",
        )
    return None


def _extension(file_name: str | None, mime: str) -> str:
    """The extension of the sender's file name, else the one its type has, else mp3."""
    found = _EXTENSION.search(file_name or "")
    if found is not None:
        return found.group(1).lower()
    return _EXTENSIONS.get(mime.lower(), "mp3")


def language_hint(message: Message) -> str | None:
    """`ru` for a sender whose Telegram speaks Russian, else None (the server detects it).

    Only Russian is hinted: the bot's users speak it or English, and an English interface is
    common among people who speak something else, where a wrong hint would garble the text.
    """
    user = message.from_user
    code = (user.language_code or "") if user is not None else ""
    return "ru" if code.lower().split("-")[0] == "ru" else None

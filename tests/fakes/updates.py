"""Builds the `Update` objects Telegram would deliver, for feeding a dispatcher directly."""

from __future__ import annotations

import itertools
import time
from typing import Any

from aiogram import Bot
from aiogram.types import Update

from tests.fakes.accounts import USER_ID


class Updates:
    """Builds real `Update` objects from the JSON Telegram sends, with increasing ids."""

    def __init__(self, bot: Bot) -> None:
        self._bot = bot
        self._update_ids = itertools.count(1)
        self._message_ids = itertools.count(1)

    def user(
        self, user_id: int = USER_ID, language_code: str | None = "ru", **extra: Any
    ) -> dict[str, Any]:
        """A `User` object."""
        user: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": f"User{user_id}"}
        if language_code is not None:
            user["language_code"] = language_code
        user.update(extra)
        return user

    def message_json(
        self,
        text: str | None = None,
        *,
        user_id: int = USER_ID,
        chat_id: int | None = None,
        chat_type: str = "private",
        language_code: str | None = "ru",
        **extra: Any,
    ) -> dict[str, Any]:
        """A `Message` object; `extra` adds any other field (entities, document, sticker…)."""
        chat: dict[str, Any] = {"id": chat_id if chat_id is not None else user_id}
        chat["type"] = chat_type
        if chat_type == "private":
            chat["first_name"] = f"User{user_id}"
        else:
            chat["title"] = "Team"
        message: dict[str, Any] = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": chat,
            "from": self.user(user_id, language_code),
        }
        if text is not None:
            message["text"] = text
        message.update(extra)
        return message

    def message(self, text: str | None = None, **kwargs: Any) -> Update:
        """An update carrying a new message."""
        return self.wrap("message", self.message_json(text, **kwargs))

    def edited(self, text: str, **kwargs: Any) -> Update:
        """An update carrying an edited message."""
        message = self.message_json(text, **kwargs)
        message["edit_date"] = message["date"]
        return self.wrap("edited_message", message)

    def command(self, text: str, **kwargs: Any) -> Update:
        """A message starting with a bot command, with its `bot_command` entity."""
        length = len(text.split(maxsplit=1)[0].encode("utf-16-le")) // 2
        entities = [{"type": "bot_command", "offset": 0, "length": length}]
        return self.message(text, entities=entities, **kwargs)

    def document(
        self,
        file_name: str | None,
        *,
        file_id: str = "doc1",
        file_size: int | None = 10,
        caption: str | None = None,
        mime_type: str | None = None,
        **kwargs: Any,
    ) -> Update:
        """A message with a document attached (`media_group_id=` makes it an album's item)."""
        document: dict[str, Any] = {"file_id": file_id, "file_unique_id": f"u{file_id}"}
        if file_name is not None:
            document["file_name"] = file_name
        if file_size is not None:
            document["file_size"] = file_size
        if mime_type is not None:
            document["mime_type"] = mime_type
        extra: dict[str, Any] = {"document": document}
        if caption is not None:
            extra["caption"] = caption
        return self.message(None, **extra, **kwargs)

    def photo(
        self,
        *,
        file_id: str = "photo1",
        file_size: int | None = 60_000,
        width: int = 1280,
        height: int = 960,
        caption: str | None = None,
        thumbnail_size: int | None = 1_200,
        **kwargs: Any,
    ) -> Update:
        """A message with a photo as Telegram sends it: a thumbnail (`<file_id>-thumb`), then
        the full size (`file_id`; `add_file` serves the bytes); `media_group_id=` makes it an
        album's."""
        thumb_height = 90 * height // width
        thumbnail = _media(f"{file_id}-thumb", thumbnail_size, width=90, height=thumb_height)
        full = _media(file_id, file_size, width=width, height=height)
        extra: dict[str, Any] = {"photo": [thumbnail, full]}
        if caption is not None:
            extra["caption"] = caption
        return self.message(None, **extra, **kwargs)

    def voice(
        self,
        *,
        file_id: str = "voice1",
        duration: int = 4,
        file_size: int | None = 9_000,
        mime_type: str | None = "audio/ogg",
        **kwargs: Any,
    ) -> Update:
        """A message with a voice recording (its bytes are served by `add_file`)."""
        voice = _media(file_id, file_size, duration=duration, mime_type=mime_type)
        return self.message(None, voice=voice, **kwargs)

    def audio(
        self,
        *,
        file_id: str = "audio1",
        duration: int = 30,
        file_size: int | None = 60_000,
        file_name: str | None = "question.mp3",
        mime_type: str | None = "audio/mpeg",
        **kwargs: Any,
    ) -> Update:
        """A message with an audio file."""
        audio = _media(
            file_id, file_size, duration=duration, file_name=file_name, mime_type=mime_type
        )
        return self.message(None, audio=audio, **kwargs)

    def video_note(
        self,
        *,
        file_id: str = "note1",
        duration: int = 6,
        file_size: int | None = 120_000,
        **kwargs: Any,
    ) -> Update:
        """A message with a video note (a round video)."""
        note = _media(file_id, file_size, duration=duration, length=240)
        return self.message(None, video_note=note, **kwargs)

    def callback(
        self,
        data: str,
        *,
        user_id: int = USER_ID,
        message: dict[str, Any] | None = None,
        language_code: str | None = "ru",
    ) -> Update:
        """A tap on an inline button under `message` (one of the bot's messages)."""
        query: dict[str, Any] = {
            "id": f"cb{next(self._update_ids)}",
            "from": self.user(user_id, language_code),
            "chat_instance": f"ci{user_id}",
            "data": data,
        }
        if message is not None:
            query["message"] = message
        return self.wrap("callback_query", query)

    def inline_query(
        self,
        query: str,
        *,
        user_id: int = USER_ID,
        language_code: str | None = "ru",
        chat_type: str | None = "supergroup",
    ) -> Update:
        """Words typed after the bot's username in a chat (`@bot words`), as an inline query."""
        inline: dict[str, Any] = {
            "id": f"iq{next(self._update_ids)}",
            "from": self.user(user_id, language_code),
            "query": query,
            "offset": "",
        }
        if chat_type is not None:
            inline["chat_type"] = chat_type
        return self.wrap("inline_query", inline)

    def wrap(self, kind: str, payload: dict[str, Any]) -> Update:
        """Wrap an event into an `Update` bound to the bot, as polling would deliver it."""
        data = {"update_id": next(self._update_ids), kind: payload}
        return Update.model_validate(data, context={"bot": self._bot})


def _media(file_id: str, file_size: int | None, **fields: Any) -> dict[str, Any]:
    """A file object as Telegram sends it; fields given as None are left out."""
    media: dict[str, Any] = {"file_id": file_id, "file_unique_id": f"u{file_id}"}
    if file_size is not None:
        media["file_size"] = file_size
    media.update({k: v for k, v in fields.items() if v is not None})
    return media


def mention_entity(text: str, mention: str) -> dict[str, Any]:
    """The `mention` entity for `mention` (e.g. "@docs_test_bot") inside `text`."""
    index = text.index(mention)
    offset = len(text[:index].encode("utf-16-le")) // 2
    return {"type": "mention", "offset": offset, "length": len(mention.encode("utf-16-le")) // 2}

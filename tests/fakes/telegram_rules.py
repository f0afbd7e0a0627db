"""What Telegram refuses in the calls the bot makes, with the 400 descriptions Telegram sends.

Both fake Bot APIs (the session inside the process and the server over HTTP) ask `TelegramRules`
before answering, so every test that goes through them obeys Telegram's limits: the length and
emptiness of a message, the HTML of `parse_mode=HTML`, and which messages exist to be edited or
deleted. A message exists once the fake answered a sendMessage for it, or a test said it was
there before (`add_message`); a deleteMessage removes it. A message draft (`sendMessageDraft`)
follows the rules of a message's text, except that it may be empty (Telegram then shows a
placeholder); drafts exist in private chats only. An uploaded photo is refused as Telegram
refuses it: over 10 MB, not an image, or out of shape (`check_photo`).

Telegram keeps at most 100 entities of a message and silently drops the rest, so more is not
a refusal: the message a fake answers with carries the first 100.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tests.fakes.telegram_html import Formatted, HtmlError, read_html, utf16_length

MAX_TEXT_LENGTH = 4096  # UTF-16 code units of the text a user sees
MAX_ENTITIES = 100
EMPTY = "Bad Request: message text is empty"
TOO_LONG = "Bad Request: message is too long"
EDIT_TOO_LONG = "Bad Request: MESSAGE_TOO_LONG"
CANNOT_PARSE = "Bad Request: can't parse entities: "
EDIT_NOT_FOUND = "Bad Request: message to edit not found"
DELETE_NOT_FOUND = "Bad Request: message to delete not found"
DRAFT_PEER_INVALID = "Bad Request: TEXTDRAFT_PEER_INVALID"
DRAFT_ID_INVALID = "Bad Request: DRAFT_ID_INVALID"
PHOTO_INVALID = "Bad Request: PHOTO_INVALID_DIMENSIONS"
PHOTO_TOO_BIG = "Bad Request: PHOTO_SAVE_FILE_INVALID"
MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_PHOTO_SIDES = 10_000
MAX_PHOTO_RATIO = 20


class Refused(Exception):
    """Telegram answers 400 with `description`."""

    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description


def formatted(text: str, parse_mode: str | None) -> Formatted:
    """The message Telegram would keep for `text`: parsed, trimmed, at most 100 entities.

    Raises `Refused` when Telegram cannot parse the HTML or nothing is left to show; the length
    is for the caller to judge, as sending and editing word a long text differently.
    """
    if parse_mode is not None and parse_mode.lower() == "html":
        try:
            read = read_html(text)
        except HtmlError as exc:
            raise Refused(CANNOT_PARSE + str(exc)) from exc
    else:
        read = Formatted(text)
    shown = read.text.strip()
    if not shown:
        raise Refused(EMPTY)
    lead = utf16_length(read.text[: len(read.text) - len(read.text.lstrip())])
    size = utf16_length(shown)
    entities = []
    for entity in read.entities:
        start = max(entity.offset - lead, 0)
        end = min(entity.offset + entity.length - lead, size)
        if end > start:
            entities.append(replace(entity, offset=start, length=end - start))
    return Formatted(shown, tuple(entities[:MAX_ENTITIES]))


class TelegramRules:
    """Judges each call as Telegram would, and remembers which messages exist in which chat."""

    def __init__(self) -> None:
        self._messages: set[tuple[str, int]] = set()

    def add_message(self, chat_id: int | str, message_id: int) -> None:
        """A message that is in the chat already (sent before the test, by an earlier run)."""
        self._messages.add((str(chat_id), int(message_id)))

    def has_message(self, chat_id: int | str, message_id: int) -> bool:
        """Whether the message exists, so it can be edited or deleted."""
        return (str(chat_id), int(message_id)) in self._messages

    def check(self, method: str, params: Mapping[str, Any]) -> Formatted | None:
        """Raise `Refused` if Telegram refuses the call; else the message text it would keep.

        `params` are the call's parameters by their Bot API names (`chat_id`, `message_id`,
        `text`, `parse_mode`); the method name is matched without regard to case.
        """
        name = method.lower()
        if name == "sendmessage":
            kept = formatted(str(params.get("text") or ""), params.get("parse_mode"))
            if utf16_length(kept.text) > MAX_TEXT_LENGTH:
                raise Refused(TOO_LONG)
            return kept
        if name == "editmessagetext":
            kept = formatted(str(params.get("text") or ""), params.get("parse_mode"))
            if params.get("inline_message_id") is None and not self._exists(params):
                raise Refused(EDIT_NOT_FOUND)
            if utf16_length(kept.text) > MAX_TEXT_LENGTH:
                raise Refused(EDIT_TOO_LONG)
            return kept
        if name == "sendmessagedraft":
            return _draft(params)
        if name == "deletemessage" and not self._exists(params):
            raise Refused(DELETE_NOT_FOUND)
        return None

    def accepted(self, method: str, params: Mapping[str, Any], result: Any) -> None:
        """Note what an answered call changed: a message sent, or one deleted."""
        name = method.lower()
        chat_id = params.get("chat_id")
        if chat_id is None:
            return
        if name == "sendmessage":
            message_id = _field(result, "message_id")
            if message_id is not None:
                self.add_message(chat_id, int(message_id))
        elif name == "deletemessage":
            self._messages.discard((str(chat_id), int(params["message_id"])))

    def _exists(self, params: Mapping[str, Any]) -> bool:
        chat_id, message_id = params.get("chat_id"), params.get("message_id")
        if chat_id is None or message_id is None:
            return False
        return self.has_message(chat_id, int(message_id))


def _draft(params: Mapping[str, Any]) -> Formatted:
    """The text a draft shows; drafts are for private chats, and may be empty."""
    chat_id = str(params.get("chat_id"))
    if not chat_id.lstrip("-").isdigit() or int(chat_id) <= 0:
        raise Refused(DRAFT_PEER_INVALID)
    if not int(params.get("draft_id") or 0):
        raise Refused(DRAFT_ID_INVALID)
    try:
        kept = formatted(str(params.get("text") or ""), params.get("parse_mode"))
    except Refused as refused:
        if refused.description == EMPTY:
            return Formatted("")
        raise
    if utf16_length(kept.text) > MAX_TEXT_LENGTH:
        raise Refused(TOO_LONG)
    return kept


def _field(result: Any, name: str) -> Any:
    if isinstance(result, Mapping):
        return result.get(name)
    return getattr(result, name, None)


def check_photo(photo: object) -> None:
    """Refuse an uploaded photo Telegram would: over 10 MB, not an image, width and height
    over 10,000 together, or sides over 20 to 1 (a photo given by file id or URL passes)."""
    from aiogram.types import BufferedInputFile  # noqa: PLC0415
    from PIL import Image, UnidentifiedImageError  # noqa: PLC0415

    if not isinstance(photo, BufferedInputFile):
        return
    if len(photo.data) > MAX_PHOTO_BYTES:
        raise Refused(PHOTO_TOO_BIG)
    try:
        with Image.open(io.BytesIO(photo.data)) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError) as exc:
        raise Refused(PHOTO_INVALID) from exc
    if width + height > MAX_PHOTO_SIDES or max(width, height) > MAX_PHOTO_RATIO * min(
        width, height
    ):
        raise Refused(PHOTO_INVALID)

"""Pictures: a photo, or an image sent as a file, with or without a caption, is a question.

The pictures (one, or every picture of an album, gathered by `middlewares.albums`) are
fetched and prepared (`picture_downloads`), then asked about exactly like a typed question
(`Asker.answer`), so access, limits, progress, the answer and its sources behave the same. The
caption is the question; a picture without one asks what it shows and what the documents say
about it. In groups the caption must mention the bot (or the message reply to it), as text must.

An admin's image file in a private chat is an upload, as every admin's document is (`admin`
comes first); an admin asks about a picture by sending it as a photo. A picture refused before
any work (more than IMAGE_MAX_MB by the size Telegram announced) is not counted as a question.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from aiogram import Bot, Router
from aiogram.enums import ChatAction
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message

from bot.settings.model import Settings
from bot.telegram.addressing import has_words, question_text
from bot.telegram.context import ChatContext
from bot.telegram.handlers.filters import addressed
from bot.telegram.handlers.questions import Asker
from bot.telegram.handlers.replies import say
from bot.telegram.picture_downloads import PictureRefused, cap_bytes, fetch_pictures, over_cap
from bot.telegram.picture_files import PictureFile, carries_picture, picture_file
from bot.telegram.texts import Texts
from bot.telegram.tuning import Tuning

log = logging.getLogger(__name__)

_FLAGS = {"question": True}
_TELEGRAM_MB = 20
"""The largest file Telegram's own Bot API hands a bot."""


def make_router() -> Router:
    """Photos and image files addressed to the bot: refused when too big, else answered."""
    router = Router(name="pictures")
    router.message.filter(addressed, carries_picture)
    router.message.register(on_too_big, announced_too_big)
    router.message.register(on_pictures, flags=_FLAGS)
    return router


def pictures_of(
    message: Message, settings: Settings, album: Sequence[Message] = ()
) -> list[PictureFile]:
    """The pictures a question is about: the album's, or the message's own."""
    limit = cap_bytes(settings.image_max_mb)
    items = album or (message,)
    return [file for item in items if (file := picture_file(item, limit)) is not None]


async def announced_too_big(
    message: Message, settings: Settings, album: Sequence[Message] = ()
) -> bool:
    """A picture Telegram says is over IMAGE_MAX_MB (known before any download)."""
    return over_cap(pictures_of(message, settings, album), settings.image_max_mb)


async def on_too_big(
    message: Message, *, bot: Bot, settings: Settings, tuning: Tuning, chat_context: ChatContext
) -> None:
    """Refuse without downloading: say what the limit is."""
    log.info("refused a picture over IMAGE_MAX_MB in %s", chat_context.conversation)
    text = chat_context.texts.picture_too_big_reply(settings.image_max_mb)
    await say(bot, chat_context, text, tuning)


async def on_pictures(
    message: Message,
    *,
    bot: Bot,
    asker: Asker,
    settings: Settings,
    tuning: Tuning,
    chat_context: ChatContext,
    album: Sequence[Message] = (),
) -> None:
    """Fetch and prepare the pictures, then ask about them with the caption."""
    texts = chat_context.texts
    files = pictures_of(message, settings, album)
    most = settings.images_per_question
    if len(files) > most:
        log.info(
            "%d pictures in %s, the first %d asked", len(files), chat_context.conversation, most
        )
        await say(bot, chat_context, texts.pictures_over_count_reply(len(files), most), tuning)
        files = files[:most]
    await _typing(bot, chat_context)
    try:
        pictures = await fetch_pictures(
            bot, files, limit_mb=settings.image_max_mb, max_side=settings.image_max_side
        )
    except PictureRefused as exc:
        log.info(
            "picture %d in %s refused (%s): %s",
            exc.number,
            chat_context.conversation,
            exc.kind,
            exc,
        )
        reply = _refusal(texts, exc, settings.image_max_mb, several=len(files) > 1)
        await say(bot, chat_context, reply, tuning)
        return
    question = question_text(message, await bot.me())
    if not has_words(question):
        question = texts.picture_question
    await asker.answer(bot, message, chat_context, text=question, pictures=pictures)


def _refusal(texts: Texts, exc: PictureRefused, limit_mb: float, *, several: bool) -> str:
    """What the user is told about a picture that could not be used."""
    if exc.kind == "too_big":
        reply = texts.picture_too_big_reply(limit_mb)
    elif exc.kind == "too_big_for_server":
        reply = texts.picture_too_big_reply(_TELEGRAM_MB)
    elif exc.kind == "too_many_pixels":
        reply = texts.picture_too_many_pixels
    elif exc.kind == "unreadable":
        reply = texts.picture_unreadable
    else:
        reply = texts.picture_download_failed
    return texts.picture_numbered_reply(exc.number, reply) if several else reply


async def _typing(bot: Bot, chat_context: ChatContext) -> None:
    """Show "typing…" while the pictures are fetched and prepared (best effort)."""
    place = chat_context.place
    try:
        await bot.send_chat_action(
            chat_id=place.chat_id, action=ChatAction.TYPING, message_thread_id=place.thread_id
        )
    except TelegramAPIError as exc:
        log.debug("could not show typing in chat %d: %s", place.chat_id, exc)

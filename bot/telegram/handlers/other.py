"""Messages the bot cannot read (stickers, videos…): a short note on what it can do.

Voice messages, audio files and video notes are questions (`handlers.voice`), and so are photos
and image files (`handlers.pictures`): none is listed here.

Edited messages get no handler on purpose: the original was already answered, and answering
every correction would repeat the work; a corrected question is simply sent again.
"""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.enums import ContentType
from aiogram.types import Message

from bot.telegram.context import ChatContext
from bot.telegram.handlers.filters import Matches, addressed
from bot.telegram.handlers.replies import say
from bot.telegram.tuning import Tuning

UNREADABLE = frozenset(
    {
        ContentType.STICKER,
        ContentType.VIDEO,
        ContentType.ANIMATION,
        ContentType.LOCATION,
        ContentType.VENUE,
        ContentType.CONTACT,
        ContentType.POLL,
        ContentType.DICE,
        ContentType.STORY,
    }
)


def make_router() -> Router:
    """The fallback for content the bot does not read; service messages stay unanswered."""
    router = Router(name="other")
    router.message.filter(addressed)
    router.message.register(on_unreadable, Matches(F.content_type.in_(UNREADABLE)))
    return router


async def on_unreadable(
    message: Message, *, bot: Bot, tuning: Tuning, chat_context: ChatContext
) -> None:
    """Say what the bot can do instead."""
    await say(bot, chat_context, chat_context.texts.non_text, tuning)

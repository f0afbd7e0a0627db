"""Small helpers every handler uses to answer in the right place and language."""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import Message

from bot.telegram.addressing import is_group
from bot.telegram.output.delivery import Chunk, Delivered, Delivery
from bot.telegram.output.pacing import ChatPlace
from bot.telegram.texts import Texts, texts_for
from bot.telegram.tuning import Tuning


def user_texts(message: Message) -> Texts:
    """The texts in the sender's language."""
    return texts_for(message.from_user.language_code if message.from_user else None)


def place_of(message: Message) -> ChatPlace:
    """Where to answer: same chat and forum topic; in groups as a reply to the question."""
    thread = message.message_thread_id if message.is_topic_message else None
    reply_to = message.message_id if is_group(message) else None
    return ChatPlace(chat_id=message.chat.id, thread_id=thread, reply_to=reply_to)


async def say(bot: Bot, message: Message, html: str, tuning: Tuning) -> Delivered:
    """Send one of the bot's own HTML texts with the full delivery safety net."""
    delivery = Delivery(
        bot, place_of(message), retry_wait_cap_s=tuning.retry_wait_cap_s, sleep=tuning.sleep
    )
    return await delivery.send([Chunk.from_html(html)])

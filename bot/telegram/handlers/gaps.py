"""`/gaps`: the questions the documents could not answer in the last days, grouped, for admins
in a private chat (it shows what people asked), within the admin's folders: a question whose
answer read a file outside them is left out, as `/feedback` leaves it out."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, MagicData
from aiogram.types import Message

from bot.digests.gaps.report import RECENT_DAYS, GapReport
from bot.telegram.context import ChatContext
from bot.telegram.handlers.private import in_private, reply_with
from bot.telegram.handlers.replies import say
from bot.telegram.texts.gaps import gaps_texts
from bot.telegram.tuning import Tuning


def make_router() -> Router:
    """Admins only; anyone else's `/gaps` falls through to the admin-only notice."""
    router = Router(name="gaps")
    router.message.filter(MagicData(F.is_admin))
    router.message.register(on_gaps, Command("gaps"), in_private)
    router.message.register(reply_with(lambda t: t.access_in_private), Command("gaps"))
    return router


async def on_gaps(
    message: Message,
    *,
    bot: Bot,
    gap_report: GapReport,
    tuning: Tuning,
    chat_context: ChatContext,
) -> None:
    """The groups of the last `RECENT_DAYS` days within the admin's scope, most asked first."""
    gaps = await gap_report.recent(RECENT_DAYS, viewer=await chat_context.scope())
    texts = gaps_texts(chat_context.language)
    await say(bot, chat_context, texts.listing(gaps, days=RECENT_DAYS), tuning)

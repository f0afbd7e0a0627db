"""Buttons under an answer: they go on the last part and survive every retry and fallback."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from aiogram import Bot
from aiogram.methods import EditMessageText, SendMessage
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiohttp.client_reqrep import ConnectionKey

from bot.telegram.output.delivery import Chunk, Delivery
from bot.telegram.output.pacing import ChatPlace
from tests.fakes.accounts import USER_ID
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.harness import RecordedSleep

BUTTONS = InlineKeyboardMarkup(
    inline_keyboard=[[InlineKeyboardButton(text="📄 a.txt", callback_data="src:abcdefghijkl")]]
)
PARTS = [Chunk("<b>один</b>", "один"), Chunk("<i>два</i>", "два")]


@pytest.fixture
def place(bot_session: FakeTelegramSession) -> ChatPlace:
    bot_session.add_message(USER_ID, 55)  # the status message the tests hand to Delivery
    return ChatPlace(chat_id=USER_ID)


def _markups(session: FakeTelegramSession) -> list[tuple[str, Any]]:
    return [
        (str(call.text), call.reply_markup)
        for call in session.calls
        if isinstance(call, SendMessage | EditMessageText)
    ]


class TestMarkup:
    async def test_only_the_last_part_carries_the_buttons(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        await Delivery(bot, place).send(PARTS, status_message_id=55, reply_markup=BUTTONS)
        assert _markups(bot_session) == [("<b>один</b>", None), ("<i>два</i>", BUTTONS)]
        assert bot_session.called("editMessageText")[0].message_id == 55

    async def test_a_single_part_edited_into_the_status_carries_them(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        await Delivery(bot, place).send(PARTS[:1], status_message_id=55, reply_markup=BUTTONS)
        (edit,) = bot_session.called("editMessageText")
        assert edit.reply_markup == BUTTONS

    async def test_the_plain_text_resend_keeps_them(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_error("sendMessage", 400, "Bad Request: can't parse entities")
        await Delivery(bot, place).send(PARTS[1:], reply_markup=BUTTONS)
        assert _markups(bot_session) == [("<i>два</i>", BUTTONS), ("два", BUTTONS)]

    async def test_retries_after_flood_control_and_refused_connections_keep_them(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        key = ConnectionKey("api.telegram.org", 443, True, True, None, None, None, None)
        refused = aiohttp.ClientConnectorError(key, ConnectionRefusedError(111, "refused"))
        bot_session.add_error("sendMessage", 429, "Too Many Requests", retry_after=1)
        bot_session.add_network_error("sendMessage", refused)
        result = await Delivery(bot, place, sleep=RecordedSleep()).send(
            PARTS[:1], reply_markup=BUTTONS
        )
        assert result.complete
        assert [markup for _, markup in _markups(bot_session)] == [BUTTONS] * 3

    async def test_a_status_that_cannot_be_edited_becomes_a_new_message_with_them(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_error("editMessageText", 400, "Bad Request: message can't be edited")
        await Delivery(bot, place).send(PARTS[:1], status_message_id=55, reply_markup=BUTTONS)
        (sent,) = bot_session.called("sendMessage")
        assert sent.reply_markup == BUTTONS

    async def test_a_part_whose_send_was_unclear_gets_them_with_its_text(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_network_error("sendMessage", aiohttp.ServerDisconnectedError())
        await Delivery(bot, place, sleep=RecordedSleep()).send(PARTS[1:], reply_markup=BUTTONS)
        assert _markups(bot_session) == [
            ("<i>два</i>", BUTTONS),
            ("▌", None),  # the placeholder: no buttons until the text is there
            ("<i>два</i>", BUTTONS),
        ]

"""Delivery against Telegram's refusals: flood control, stale status messages, blocked users."""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
import pytest
from aiogram import Bot
from aiohttp.client_reqrep import ConnectionKey

from bot.telegram.output.delivery import Chunk, Delivery
from bot.telegram.output.pacing import ChatPlace, EditPacer
from tests.fakes.accounts import USER_ID
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.harness import Harness, RecordedSleep

FLOOD = "Too Many Requests: retry after 1"


def _texts(session: FakeTelegramSession, method: str) -> list[str]:
    return [str(c.text) for c in session.called(method)]


class TestThroughTheDispatcher:
    async def test_429_on_send_is_waited_out(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(show_progress=False) as harness:
            harness.llm.reply_text("Ответ.")
            harness.session.add_error("sendMessage", 429, FLOOD, retry_after=1)
            await harness.feed(harness.updates.message("вопрос"))
            assert _texts(harness.session, "sendMessage") == ["Ответ.", "Ответ."]
            assert harness.sleep.waits == [1.0]

    async def test_429_on_edit_is_waited_out(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(stream="off") as harness:  # the answer is the status edit
            harness.llm.reply_text("Ответ.")
            harness.session.add_error("editMessageText", 429, FLOOD, retry_after=1)
            await harness.feed(harness.updates.message("вопрос"))
            edits = harness.session.called("editMessageText")
            assert [e.text for e in edits[-2:]] == ["Ответ.", "Ответ."]
            assert len(harness.session.called("sendMessage")) == 1
            assert harness.sleep.waits[0] == 1.0  # then the pacer's own wait, on the same sleep

    async def test_403_is_dropped_quietly_and_logged(
        self, make_dispatcher: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        async with make_dispatcher(show_progress=False) as harness:
            harness.llm.reply_text("Ответ.")
            harness.session.add_error("sendMessage", 403, "Forbidden: bot was blocked by the user")
            with caplog.at_level(logging.INFO):
                await harness.feed(harness.updates.message("вопрос"))
            assert len(harness.session.called("sendMessage")) == 1
            assert any("blocked the bot" in r.getMessage() for r in caplog.records)
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

    async def test_status_message_gone_falls_back_to_sending(self, harness: Harness) -> None:
        harness.llm.reply_text("Ответ.")
        harness.session.add_error("editMessageText", 400, "Bad Request: message to edit not found")
        await harness.feed(harness.updates.message("вопрос"))
        assert _texts(harness.session, "sendMessage")[-1] == "Ответ."


@pytest.fixture
def place(bot_session: FakeTelegramSession) -> ChatPlace:
    bot_session.add_message(USER_ID, 55)  # the status message the tests hand to Delivery
    return ChatPlace(chat_id=USER_ID)


class TestDelivery:
    async def test_not_modified_counts_as_delivered(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        # The status already shows this very text: nothing to resend, nothing to delete.
        bot_session.add_error("editMessageText", 400, "Bad Request: message is not modified")
        result = await Delivery(bot, place).send(
            [Chunk("<b>один</b>", "один"), Chunk("два", "два")], status_message_id=55
        )
        assert result.complete
        assert result.message_ids[0] == 55
        assert _texts(bot_session, "sendMessage") == ["два"]
        assert not bot_session.called("deleteMessage")

    async def test_stale_status_message_is_replaced_and_removed(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_error("editMessageText", 400, "Bad Request: message can't be edited")
        result = await Delivery(bot, place).send([Chunk("один", "один")], status_message_id=55)
        assert result.complete
        assert _texts(bot_session, "sendMessage") == ["один"]
        assert [c.message_id for c in bot_session.called("deleteMessage")] == [55]

    async def test_flood_wait_beyond_the_budget_gives_up_and_logs(
        self,
        bot: Bot,
        bot_session: FakeTelegramSession,
        place: ChatPlace,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        bot_session.add_error("sendMessage", 429, "Too Many Requests", retry_after=3600)
        result = await Delivery(bot, place, retry_wait_cap_s=5).send([Chunk("a", "a")])
        assert not result.complete
        assert result.message_ids == ()
        assert any("not delivered" in r.getMessage() for r in caplog.records)

    async def test_parts_after_a_plain_fallback_keep_their_markup(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_error("sendMessage", 400, "Bad Request: can't parse entities")
        await Delivery(bot, place).send([Chunk("<b>a</b>", "a"), Chunk("<i>b</i>", "b")])
        sent = bot_session.called("sendMessage")
        assert [(m.text, m.parse_mode) for m in sent] == [
            ("<b>a</b>", "HTML"),
            ("a", None),
            ("<i>b</i>", "HTML"),
        ]

    async def test_server_errors_are_retried(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_error("sendMessage", 502, "Bad Gateway")
        sleep = RecordedSleep()
        result = await Delivery(bot, place, sleep=sleep).send([Chunk("a", "a")])
        assert result.complete
        assert len(bot_session.called("sendMessage")) == 2
        assert sleep.waits == [1.0]


class TestPartialDelivery:
    async def test_a_refused_part_is_skipped_and_the_rest_still_arrive(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        for _ in range(2):  # as HTML, then as plain text
            bot_session.add_error("sendMessage", 400, "Bad Request: message is too long")
        result = await Delivery(bot, place).send(
            [Chunk("<b>a</b>", "a"), Chunk("b", "b")], failure_notice="lost a part"
        )
        assert not result.complete
        assert _texts(bot_session, "sendMessage") == ["<b>a</b>", "a", "b", "lost a part"]

    async def test_nothing_delivered_turns_the_status_into_the_notice(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_error("editMessageText", 429, "Too Many Requests", retry_after=3600)
        result = await Delivery(bot, place, retry_wait_cap_s=5).send(
            [Chunk("a", "a")], status_message_id=55, failure_notice="lost"
        )
        assert result.message_ids == ()
        edits = bot_session.called("editMessageText")
        assert [(e.message_id, e.text) for e in edits] == [(55, "a"), (55, "lost")]

    async def test_without_a_notice_the_stale_status_is_deleted(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_error("editMessageText", 429, "Too Many Requests", retry_after=3600)
        await Delivery(bot, place, retry_wait_cap_s=5).send(
            [Chunk("a", "a")], status_message_id=55
        )
        assert [c.message_id for c in bot_session.called("deleteMessage")] == [55]


class TestReuse:
    """Messages that already show the answer's beginning (it was streamed) take its parts."""

    async def test_shown_messages_take_the_first_parts_and_the_rest_follow(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        for message_id in (56, 57):
            bot_session.add_message(USER_ID, message_id)
        parts = [Chunk("один", "один"), Chunk("два", "два"), Chunk("три", "три")]
        result = await Delivery(bot, place).send(parts, status_message_id=55, reuse=(56, 57))
        assert result.complete
        assert result.message_ids[:2] == (56, 57)
        assert [(e.message_id, e.text) for e in bot_session.called("editMessageText")] == [
            (56, "один"),
            (57, "два"),
        ]
        assert _texts(bot_session, "sendMessage") == ["три"]
        assert [d.message_id for d in bot_session.called("deleteMessage")] == [55]

    async def test_shown_messages_left_over_are_deleted(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_message(USER_ID, 56)
        result = await Delivery(bot, place).send(
            [Chunk("ошибка", "ошибка")], status_message_id=55, reuse=(55, 56)
        )
        assert result.message_ids == (55,)
        assert [d.message_id for d in bot_session.called("deleteMessage")] == [56]
        assert not bot_session.called("sendMessage")


class TestNetworkRetries:
    async def test_read_timeout_on_send_goes_into_a_placeholder_by_edit(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_network_error("sendMessage", TimeoutError("read timed out"))
        result = await Delivery(bot, place, sleep=RecordedSleep()).send(
            [Chunk("a", "a"), Chunk("b", "b")]
        )
        assert _texts(bot_session, "sendMessage") == ["a", "▌", "b"], "never 'a' twice"
        placeholder = bot_session.called("sendMessage")[1]
        assert placeholder.disable_notification, "the placeholder makes no sound"
        assert _texts(bot_session, "editMessageText") == ["a"]
        assert result.complete
        assert len(result.message_ids) == 2

    async def test_a_placeholder_whose_send_is_unclear_is_made_again(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_network_error("sendMessage", aiohttp.ServerDisconnectedError())
        placeholders: list[int] = []

        async def lose_the_first_placeholder(method: Any) -> None:
            if method.text == "▌" and not placeholders:
                placeholders.append(1)
                bot_session.add_lost_reply("sendMessage", aiohttp.ServerDisconnectedError())

        bot_session.hooks["sendMessage"] = lose_the_first_placeholder
        result = await Delivery(bot, place, sleep=RecordedSleep()).send([Chunk("a", "a")])
        assert _texts(bot_session, "sendMessage") == ["a", "▌", "▌"]
        assert len(bot_session.lost_replies) == 1, "the first placeholder arrived unseen"
        (edit,) = bot_session.called("editMessageText")
        assert (edit.text, edit.message_id) == ("a", result.message_ids[0])
        assert edit.message_id != bot_session.lost_replies[0][1].message_id

    async def test_placeholders_that_never_send_clearly_end_in_a_logged_gap(
        self,
        bot: Bot,
        bot_session: FakeTelegramSession,
        place: ChatPlace,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        for _ in range(4):  # the part, then each placeholder
            bot_session.add_network_error("sendMessage", TimeoutError("read timed out"))
        result = await Delivery(bot, place, sleep=RecordedSleep()).send(
            [Chunk("a", "a"), Chunk("b", "b")]
        )
        assert _texts(bot_session, "sendMessage") == ["a", "▌", "▌", "▌", "b"]
        assert len(result.message_ids) == 1, "the next part still goes"
        assert any("may not have arrived" in r.getMessage() for r in caplog.records)

    async def test_a_server_error_is_no_unclear_send(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_error("sendMessage", 502, "Bad Gateway")
        result = await Delivery(bot, place, sleep=RecordedSleep()).send([Chunk("a", "a")])
        assert result.complete
        assert _texts(bot_session, "sendMessage") == ["a", "a"], "sent again, no placeholder"

    async def test_a_clear_refusal_is_no_unclear_send(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_error("sendMessage", 400, "Bad Request: chat not found")
        bot_session.add_error("sendMessage", 400, "Bad Request: chat not found")
        result = await Delivery(bot, place, sleep=RecordedSleep()).send([Chunk("a", "a")])
        assert not result.complete
        assert "▌" not in _texts(bot_session, "sendMessage")

    async def test_refused_connection_is_retried(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        key = ConnectionKey("api.telegram.org", 443, True, True, None, None, None, None)
        refused = aiohttp.ClientConnectorError(key, ConnectionRefusedError(111, "refused"))
        bot_session.add_network_error("sendMessage", refused)
        sleep = RecordedSleep()
        result = await Delivery(bot, place, sleep=sleep).send([Chunk("a", "a")])
        assert result.complete
        assert _texts(bot_session, "sendMessage") == ["a", "a"]
        assert sleep.waits == [1.0]

    async def test_edits_are_retried_after_a_timeout(
        self, bot: Bot, bot_session: FakeTelegramSession, place: ChatPlace
    ) -> None:
        bot_session.add_network_error("editMessageText", TimeoutError("read timed out"))
        result = await Delivery(bot, place, sleep=RecordedSleep()).send(
            [Chunk("a", "a")], status_message_id=55
        )
        assert result.complete
        assert len(bot_session.called("editMessageText")) == 2


class TestEditPacer:
    def test_paces_and_backs_off(self) -> None:
        now = [100.0]
        pacer = EditPacer(1.0, clock=lambda: now[0])
        assert pacer.delay(1) == 0
        pacer.used(1)
        assert pacer.delay(1) == 1.0
        assert pacer.delay(2) == 0
        pacer.back_off(1, 7)
        now[0] += 2
        assert pacer.delay(1) == 5.0

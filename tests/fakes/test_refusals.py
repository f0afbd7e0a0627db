"""The fake Bot APIs refuse what Telegram refuses, with the descriptions Telegram sends."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramRetryAfter

from tests.fakes.accounts import BOT_TOKEN, USER_ID
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.telegram_html import HtmlError, read_html

OTHER_CHAT = USER_ID + 1


async def _refusal(call: Any) -> str:
    with pytest.raises(TelegramBadRequest) as caught:
        await call
    return caught.value.message


class TestLength:
    async def test_4096_utf16_units_pass_and_one_more_is_too_long(self, bot: Bot) -> None:
        await bot.send_message(USER_ID, "я" * 4096)
        await bot.send_message(USER_ID, "😀" * 2048)  # two UTF-16 units each
        too_long = await _refusal(bot.send_message(USER_ID, "😀" * 2048 + "."))
        assert too_long == "Bad Request: message is too long"

    @pytest.mark.parametrize(
        ("frame", "unit", "parse_mode", "shown"),
        [
            ("<b>{}</b>", "x", "HTML", "x"),
            ("{}", "&lt;", "HTML", "<"),
            ("  {}\n", "x", None, "x"),  # trimmed first
        ],
    )
    async def test_length_is_of_the_visible_text_not_the_markup(
        self, bot: Bot, frame: str, unit: str, parse_mode: str | None, shown: str
    ) -> None:
        sent = await bot.send_message(USER_ID, frame.format(unit * 4096), parse_mode=parse_mode)
        assert sent.text == shown * 4096
        one_more = bot.send_message(USER_ID, frame.format(unit * 4097), parse_mode=parse_mode)
        assert await _refusal(one_more) == "Bad Request: message is too long"

    async def test_an_edit_too_long_has_its_own_wording(self, bot: Bot) -> None:
        sent = await bot.send_message(USER_ID, "статус")
        refusal = await _refusal(
            bot.edit_message_text("x" * 4097, chat_id=USER_ID, message_id=sent.message_id)
        )
        assert refusal == "Bad Request: MESSAGE_TOO_LONG"


class TestEmpty:
    @pytest.mark.parametrize(
        ("text", "parse_mode"),
        [("", None), (" \n\t", None), ("<b> </b>", "HTML"), ("<i></i>", "HTML")],
    )
    async def test_nothing_to_show_is_refused(
        self, bot: Bot, text: str, parse_mode: str | None
    ) -> None:
        refusal = await _refusal(bot.send_message(USER_ID, text, parse_mode=parse_mode))
        assert refusal == "Bad Request: message text is empty"

    async def test_an_empty_edit_is_refused(self, bot: Bot) -> None:
        sent = await bot.send_message(USER_ID, "статус")
        refusal = await _refusal(
            bot.edit_message_text(" ", chat_id=USER_ID, message_id=sent.message_id)
        )
        assert refusal == "Bad Request: message text is empty"


class TestHtml:
    @pytest.mark.parametrize(
        ("html", "problem"),
        [
            ("<div>x</div>", 'Unsupported start tag "div" at byte offset 0'),
            ("a < b", 'Unsupported start tag "" at byte offset 2'),
            ("<br/>", 'Unsupported start tag "br/" at byte offset 0'),
            ("ё <b>open", 'Can\'t find end tag corresponding to start tag "b"'),
            (
                "<b><i>x</b></i>",
                'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"',
            ),
            ("x</b>", "Unexpected end tag at byte offset 1"),
            ("<b", "Unclosed start tag at byte offset 0"),
            ('<a href="x>y</a>', "Unclosed start tag at byte offset 0"),
            ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
        ],
    )
    async def test_tags_telegram_cannot_parse(self, bot: Bot, html: str, problem: str) -> None:
        refusal = await _refusal(bot.send_message(USER_ID, html, parse_mode="HTML"))
        assert refusal == f"Bad Request: can't parse entities: {problem}"

    async def test_broken_html_in_an_edit_is_refused_before_the_message_is_looked_up(
        self, bot: Bot
    ) -> None:
        refusal = await _refusal(
            bot.edit_message_text("<b>x", chat_id=USER_ID, message_id=1, parse_mode="HTML")
        )
        assert refusal.startswith("Bad Request: can't parse entities: ")

    @pytest.mark.parametrize(
        ("html", "shown", "entity"),
        [
            ("AT&T & co; a > b", "AT&T & co; a > b", None),
            ('<b class="x">unknown attributes are ignored</b>', "unknown attributes are ignored",
             ("bold", 0, 30)),
            ('<a href="javascript:x">a link Telegram drops, not a refusal</a>',
             "a link Telegram drops, not a refusal", None),
            ("<code><b>nested in code</b></code>", "nested in code", ("code", 0, 14)),
            ('<pre><code class="language-py">x = 1</code></pre>', "x = 1", ("pre", 0, 5)),
            ("<blockquote expandable>q</blockquote>", "q", ("expandable_blockquote", 0, 1)),
            ("<B>upper case</B>", "upper case", ("bold", 0, 10)),
        ],
    )  # fmt: skip
    async def test_what_telegram_accepts(
        self, bot: Bot, html: str, shown: str, entity: tuple[str, int, int] | None
    ) -> None:
        sent = await bot.send_message(USER_ID, html, parse_mode="HTML")
        assert sent.text == shown
        kept = [(e.type, e.offset, e.length) for e in sent.entities or []]
        if entity is None:
            assert kept == []
        else:
            assert entity in kept

    async def test_without_a_parse_mode_tags_are_plain_text(self, bot: Bot) -> None:
        sent = await bot.send_message(USER_ID, "<div>x</div>")
        assert sent.text == "<div>x</div>"

    async def test_the_answer_is_the_visible_text_with_its_entities(self, bot: Bot) -> None:
        sent = await bot.send_message(
            USER_ID, "  😀 <b>жир</b> <a href='https://x.org'>x</a>\n", parse_mode="HTML"
        )
        assert sent.text == "😀 жир x"
        assert [(e.type, e.offset, e.length, e.url) for e in sent.entities or []] == [
            ("bold", 3, 3, None),
            ("text_link", 7, 1, "https://x.org"),
        ]

    async def test_more_than_100_entities_are_sent_with_the_first_100_kept(self, bot: Bot) -> None:
        sent = await bot.send_message(USER_ID, "<b>x</b> " * 101, parse_mode="HTML")
        assert len(sent.entities or []) == 100
        assert sent.entities is not None
        assert sent.entities[-1].offset == 99 * 2

    def test_the_parser_names_telegrams_problem(self) -> None:
        with pytest.raises(HtmlError, match="Unsupported start tag"):
            read_html("<p>x</p>")
        read = read_html('<pre><code class="language-py">a &lt; b</code></pre>')
        assert read.text == "a < b"
        assert [e.as_json() for e in read.entities] == [
            {"type": "pre", "offset": 0, "length": 5, "language": "py"}
        ]


class TestMessagesThatExist:
    async def test_edit_and_delete_of_a_message_never_sent(self, bot: Bot) -> None:
        edit = await _refusal(bot.edit_message_text("x", chat_id=USER_ID, message_id=7))
        delete = await _refusal(bot.delete_message(USER_ID, 7))
        assert edit == "Bad Request: message to edit not found"
        assert delete == "Bad Request: message to delete not found"

    async def test_a_sent_message_can_be_edited_until_deleted(self, bot: Bot) -> None:
        sent = await bot.send_message(USER_ID, "статус")
        await bot.edit_message_text("ответ", chat_id=USER_ID, message_id=sent.message_id)
        assert await bot.delete_message(USER_ID, sent.message_id)
        edit = await _refusal(
            bot.edit_message_text("снова", chat_id=USER_ID, message_id=sent.message_id)
        )
        assert edit == "Bad Request: message to edit not found"

    async def test_message_ids_belong_to_their_chat(self, bot: Bot) -> None:
        sent = await bot.send_message(USER_ID, "статус")
        refusal = await _refusal(
            bot.edit_message_text("x", chat_id=OTHER_CHAT, message_id=sent.message_id)
        )
        assert refusal == "Bad Request: message to edit not found"

    async def test_a_message_from_before_the_test_can_be_named(
        self, bot: Bot, bot_session: FakeTelegramSession
    ) -> None:
        bot_session.add_message(USER_ID, 7)
        edited = await bot.edit_message_text("ответ", chat_id=USER_ID, message_id=7)
        assert not isinstance(edited, bool)
        assert edited.text == "ответ"

    async def test_a_queued_send_result_is_an_existing_message(
        self, bot: Bot, bot_session: FakeTelegramSession
    ) -> None:
        result = {
            "message_id": 900,
            "date": 1,
            "chat": {"id": USER_ID, "type": "private"},
            "text": "статус",
        }
        bot_session.add_result("sendMessage", result)
        before = await _refusal(bot.edit_message_text("ответ", chat_id=USER_ID, message_id=900))
        assert before == "Bad Request: message to edit not found"
        sent = await bot.send_message(USER_ID, "статус")
        assert sent.message_id == 900
        edited = await bot.edit_message_text("ответ", chat_id=USER_ID, message_id=900)
        assert not isinstance(edited, bool)
        assert (edited.message_id, edited.text) == (900, "ответ")


class TestRecordingAndScripts:
    async def test_refused_calls_are_recorded_like_the_others(
        self, bot: Bot, bot_session: FakeTelegramSession
    ) -> None:
        await _refusal(bot.send_message(USER_ID, "<x>", parse_mode="HTML"))
        await _refusal(bot.delete_message(USER_ID, 5))
        assert [c.text for c in bot_session.called("sendMessage")] == ["<x>"]
        assert [c.message_id for c in bot_session.called("deleteMessage")] == [5]

    async def test_a_queued_error_comes_before_telegrams_own_refusal(
        self, bot: Bot, bot_session: FakeTelegramSession
    ) -> None:
        bot_session.add_error(
            "sendMessage", 429, "Too Many Requests: retry after 3", retry_after=3
        )
        with pytest.raises(TelegramRetryAfter):
            await bot.send_message(USER_ID, "")

    async def test_a_refused_call_leaves_the_queued_result_for_the_next(
        self, bot: Bot, bot_session: FakeTelegramSession
    ) -> None:
        result = {"message_id": 901, "date": 1, "chat": {"id": USER_ID, "type": "private"}}
        bot_session.add_result("sendMessage", result)
        await _refusal(bot.send_message(USER_ID, ""))
        sent = await bot.send_message(USER_ID, "текст")
        assert sent.message_id == 901


async def _post(api: FakeBotApi, method: str, **params: Any) -> tuple[int, dict[str, Any]]:
    url = f"{api.base_url}/bot{BOT_TOKEN}/{method}"
    async with aiohttp.ClientSession() as http, http.post(url, data=params) as response:
        body: dict[str, Any] = await response.json()
        return response.status, body


class TestOverHttp:
    async def test_the_same_rules_over_http(self, bot_api: FakeBotApi) -> None:
        status, body = await _post(bot_api, "sendMessage", chat_id=USER_ID, text="x" * 4097)
        assert (status, body["description"]) == (400, "Bad Request: message is too long")
        status, body = await _post(
            bot_api, "editMessageText", chat_id=USER_ID, message_id=3, text="x"
        )
        assert (status, body["description"]) == (400, "Bad Request: message to edit not found")
        status, body = await _post(
            bot_api, "sendMessage", chat_id=USER_ID, text="<b>жир</b>", parse_mode="HTML"
        )
        assert status == 200
        assert body["result"]["entities"] == [{"type": "bold", "offset": 0, "length": 3}]
        message_id = body["result"]["message_id"]
        status, _ = await _post(
            bot_api, "editMessageText", chat_id=USER_ID, message_id=message_id, text="ответ"
        )
        assert status == 200
        assert [c.method for c in bot_api.refused] == ["sendMessage", "editMessageText"]
        assert len(bot_api.calls) == 4

    async def test_the_first_poll_is_timed_until_reset(self, bot_api: FakeBotApi) -> None:
        await _post(bot_api, "getMe")
        assert _first_poll(bot_api) is None
        await _post(bot_api, "getUpdates", timeout=0)
        first = await bot_api.wait_first_poll()
        await _post(bot_api, "getUpdates", timeout=0)
        assert _first_poll(bot_api) == first
        bot_api.reset()
        assert (_first_poll(bot_api), bot_api.calls) == (None, [])


def _first_poll(api: FakeBotApi) -> float | None:
    return api.first_poll_at


class TestDrafts:
    async def test_a_draft_may_be_empty_but_not_broken_or_too_long(self, bot: Bot) -> None:
        assert await bot.send_message_draft(USER_ID, 7, text="<b>растёт</b>", parse_mode="HTML")
        assert await bot.send_message_draft(USER_ID, 7, text="")
        broken = await _refusal(bot.send_message_draft(USER_ID, 7, text="<b>x", parse_mode="HTML"))
        assert broken.startswith("Bad Request: can't parse entities: ")
        too_long = await _refusal(bot.send_message_draft(USER_ID, 7, text="x" * 4097))
        assert too_long == "Bad Request: message is too long"

    async def test_drafts_are_for_private_chats_with_an_id(self, bot: Bot) -> None:
        group = await _refusal(bot.send_message_draft(-100_1, 7, text="x"))
        assert group == "Bad Request: TEXTDRAFT_PEER_INVALID"
        no_id = await _refusal(bot.send_message_draft(USER_ID, 0, text="x"))
        assert no_id == "Bad Request: DRAFT_ID_INVALID"

"""Search from any chat through the whole bot: inline queries in, answerInlineQuery out, and the
card's deep link sending the document in the private chat.

The same documents folder as every bot test (`hr/`, `документы/`, `финансы/`, `it/`), a
spreadsheet added where a sheet is the place of a match; scopes from a SCOPES_FILE.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from aiogram.methods import AnswerInlineQuery, SendDocument
from aiogram.types import InlineKeyboardMarkup, InlineQueryResultArticle, InputTextMessageContent

from bot.storage.source_links import LIFETIME_S
from tests.bot.access_support import texts_to, tuning
from tests.fakes.accounts import ADMIN_ID, BOT_USERNAME, STRANGER_ID, USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.harness import Harness
from tests.tools.office_docgen import xlsx_file

VACATION = "hr/отпуск.md"
LEASE = "документы/договор_аренды.md"
BUDGET = "финансы/бюджет_2024.csv"
SCHEDULE = "hr/график.xlsx"


def _scopes_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scopes.toml"
    path.write_text(text, encoding="utf-8")
    return path


async def _ask(harness: Harness, words: str, **kwargs: Any) -> AnswerInlineQuery:
    """Type `@bot words`; the one answer the bot gave."""
    harness.session.calls.clear()
    await harness.feed(harness.updates.inline_query(words, **kwargs))
    (answered,) = harness.session.called("answerInlineQuery")
    assert isinstance(answered, AnswerInlineQuery)
    return answered


def _articles(answered: AnswerInlineQuery) -> list[InlineQueryResultArticle]:
    found = [r for r in answered.results if isinstance(r, InlineQueryResultArticle)]
    assert len(found) == len(answered.results)
    return found


def _card(article: InlineQueryResultArticle) -> str:
    content = article.input_message_content
    assert isinstance(content, InputTextMessageContent)
    return content.message_text


def _start_parameter(article: InlineQueryResultArticle) -> str:
    """The start parameter of the card's one button, which must open the bot's private chat."""
    markup = article.reply_markup
    assert isinstance(markup, InlineKeyboardMarkup)
    ((button,),) = markup.inline_keyboard
    assert button.callback_data is None
    url = urlparse(str(button.url))
    assert (url.scheme, url.netloc, url.path) == ("https", "t.me", f"/{BOT_USERNAME}")
    (parameter,) = parse_qs(url.query)["start"]
    return parameter


async def _linked_paths(harness: Harness, answered: AnswerInlineQuery) -> list[str]:
    """The documents the results' deep links stand for, in order."""
    links = harness.dp.workflow_data["source_links"]
    paths = []
    for article in _articles(answered):
        link = await links.find(_start_parameter(article).removeprefix("doc_"))
        assert link is not None
        paths.append(link.path)
    return paths


async def _result_for(
    harness: Harness, answered: AnswerInlineQuery, path: str
) -> InlineQueryResultArticle:
    """The result whose deep link stands for `path`."""
    paths = await _linked_paths(harness, answered)
    return _articles(answered)[paths.index(path)]


async def _searched(harness: Harness, words: str) -> list[str]:
    """What search_files finds for `words` over the whole folder, best first."""
    result = await harness.services.toolbox.execute("search_files", {"query": words})
    return [item["path"] for item in json.loads(result.text)["results"]]


async def _tap(harness: Harness, parameter: str, user_id: int = USER_ID) -> None:
    """Follow a card's deep link: Telegram opens the private chat and sends /start with it."""
    harness.session.calls.clear()
    await harness.feed(harness.updates.command(f"/start {parameter}", user_id=user_id))


def _documents(harness: Harness) -> list[SendDocument]:
    return [c for c in harness.session.calls if isinstance(c, SendDocument)]


class TestResults:
    async def test_telegram_is_asked_for_inline_queries(self, harness: Harness) -> None:
        assert "inline_query" in harness.dp.resolve_used_update_types()

    async def test_the_results_are_the_searchs_with_name_folder_snippet_and_place(
        self, harness: Harness
    ) -> None:
        answered = await _ask(harness, "отпуск")
        assert answered.is_personal
        assert answered.cache_time is not None
        assert answered.cache_time <= 10
        paths = await _linked_paths(harness, answered)
        assert paths == await _searched(harness, "отпуск")
        vacation = _articles(answered)[paths.index(VACATION)]
        assert vacation.title == "отпуск.md"
        assert vacation.description is not None
        assert vacation.description.startswith("hr · раздел «Правила отпусков»\n")
        assert "оплачиваемый отпуск" in vacation.description
        card = _card(vacation)
        assert "<b>отпуск.md</b>" in card
        assert "оплачиваемый отпуск" in card
        assert "раздел «Правила отпусков»" in card

    async def test_a_sheet_is_the_place_of_a_match_in_a_spreadsheet(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        workbook = xlsx_file({"Лето": [["Сотрудник", "Период"], ["Иванов", "июль, отпуск"]]})
        await asyncio.to_thread((sandbox_dir / SCHEDULE).write_bytes, workbook)
        async with make_dispatcher() as harness:
            answered = await _ask(harness, "Иванов", language_code="en")
            (article,) = _articles(answered)
            assert article.title == "график.xlsx"
            assert article.description is not None
            assert article.description.startswith("hr · sheet “Лето”\n")
            assert "Иванов" in article.description
            assert "sheet “Лето”" in _card(article)

    async def test_a_name_cannot_disguise_itself(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        disguised = sandbox_dir / "hr" / "график\u202ecod.txt"
        await asyncio.to_thread(disguised.write_text, "Летний график <b>смен</b>\n", "utf-8")
        async with make_dispatcher() as harness:
            (article,) = _articles(await _ask(harness, "график смен"))
            assert article.title == "график\\u202ecod.txt"
            card = _card(article)
            assert "\u202e" not in card
            assert "&lt;b&gt;смен&lt;/b&gt;" in card

    async def test_nothing_found_offers_the_private_chat(self, harness: Harness) -> None:
        answered = await _ask(harness, "зюзюбрякс")
        assert answered.results == []
        assert answered.button is not None
        assert "Ничего не нашлось" in answered.button.text
        assert answered.button.start_parameter

    async def test_an_empty_query_gets_a_hint_and_no_search(self, harness: Harness) -> None:
        answered = await _ask(harness, "   ")
        assert answered.results == []
        assert answered.button is not None
        assert "слова" in answered.button.text

    async def test_a_repeated_query_is_answered_from_memory_per_user(
        self, harness: Harness
    ) -> None:
        await harness.services.toolbox.wait_synced()  # a rescan would drop what is kept
        first = await _ask(harness, "аренда")
        again = await _ask(harness, "  аренда ")
        assert [a.id for a in _articles(again)] == [a.id for a in _articles(first)]
        other = await _ask(harness, "аренда", user_id=ADMIN_ID)
        assert {a.id for a in _articles(other)}.isdisjoint(a.id for a in _articles(first))

    async def test_a_change_in_the_folder_is_searched_afresh(
        self, harness: Harness, sandbox_dir: Path
    ) -> None:
        before = await _linked_paths(harness, await _ask(harness, "аренда"))
        assert BUDGET in before
        await asyncio.to_thread((sandbox_dir / BUDGET).unlink)
        await asyncio.wait_for(harness.services.toolbox.wait_synced(), 10)
        after = await _linked_paths(harness, await _ask(harness, "аренда"))
        assert BUDGET not in after
        assert LEASE in after


class TestScope:
    async def test_a_file_outside_the_askers_scope_is_never_listed(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        scopes = _scopes_file(tmp_path, f'{USER_ID} = ["документы"]\n')
        async with make_dispatcher(scopes_file=scopes) as harness:
            everything = await _linked_paths(
                harness, await _ask(harness, "аренда", user_id=ADMIN_ID)
            )
            assert BUDGET in everything
            answered = await _ask(harness, "аренда")
            assert await _linked_paths(harness, answered) == [LEASE]
            shown = "\n".join(
                f"{a.title}\n{a.description}\n{_card(a)}" for a in _articles(answered)
            )
            assert "бюджет" not in shown
            assert "финансы" not in shown


class TestStranger:
    async def test_a_stranger_gets_no_results_and_a_request_access_button(
        self, harness: Harness
    ) -> None:
        answered = await _ask(harness, "отпуск", user_id=STRANGER_ID)
        assert answered.results == []
        assert answered.is_personal
        assert answered.button is not None
        assert answered.button.text == "Запросить доступ"
        assert answered.button.start_parameter == "access"
        assert not await harness.dp.workflow_data["source_links"].forget_chat(STRANGER_ID)

    async def test_in_english(self, harness: Harness) -> None:
        answered = await _ask(harness, "vacation", user_id=STRANGER_ID, language_code="en")
        assert answered.button is not None
        assert answered.button.text == "Request access"


class TestDeepLink:
    async def test_the_cards_link_sends_the_file_in_the_private_chat(
        self, harness: Harness
    ) -> None:
        article = await _result_for(harness, await _ask(harness, "отпуск"), VACATION)
        await _tap(harness, _start_parameter(article))
        (sent,) = _documents(harness)
        assert sent.chat_id == USER_ID
        assert sent.caption == VACATION

    async def test_anyone_who_may_read_it_gets_it_and_others_do_not(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        scopes = _scopes_file(tmp_path, f'{ADMIN_ID} = ["it"]\n')
        async with make_dispatcher(scopes_file=scopes) as harness:
            article = await _result_for(harness, await _ask(harness, "аренда"), LEASE)
            parameter = _start_parameter(article)
            await _tap(harness, parameter, user_id=ADMIN_ID)
            assert not _documents(harness)
            assert "недоступен" in texts_to(harness, ADMIN_ID)[-1]
            await _tap(harness, parameter, user_id=STRANGER_ID)
            assert not _documents(harness)
            assert all(LEASE not in text for text in harness.session.sent_texts())

    async def test_a_file_gone_since_is_not_sent(
        self, harness: Harness, sandbox_dir: Path
    ) -> None:
        article = await _result_for(harness, await _ask(harness, "договор"), LEASE)
        await asyncio.to_thread((sandbox_dir / LEASE).unlink)
        await _tap(harness, _start_parameter(article))
        assert not _documents(harness)
        assert "больше нет" in texts_to(harness, USER_ID)[-1]

    async def test_an_unknown_link_says_so(self, harness: Harness) -> None:
        await _tap(harness, "doc_AAAAAAAAAAAA")
        assert not _documents(harness)
        (text,) = texts_to(harness, USER_ID)
        assert "устарела или неизвестна" in text
        assert f"@{BOT_USERNAME}" in text

    async def test_an_expired_link_says_so(self, make_dispatcher: Any) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            answered = await _ask(harness, "отпуск")
            parameter = _start_parameter(_articles(answered)[0])
            clock.advance(LIFETIME_S + 60)
            await _tap(harness, parameter)
            assert not _documents(harness)
            assert "устарела или неизвестна" in texts_to(harness, USER_ID)[-1]

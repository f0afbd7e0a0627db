"""Quotes in answers, checked: the real Dispatcher and Agent, the fake model server quoting from
documents the real toolbox read, the fake Bot API.

What is checked is what the user sees: a true quote followed by its file and place, an invented
one flagged in the user's language, the sources line with the pages read, page buttons for the
pages quoted, and an answer for which nothing was read labelled as such. A streamed answer shows
no mark while it streams; the final message carries them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from aiogram.methods import EditMessageText, SendMessage

from bot.telegram.texts import ENGLISH, RUSSIAN
from tests.bot.stream_support import Watch, slow_stream
from tests.fakes.fixtures import DispatcherFactory
from tests.fakes.harness import Harness
from tests.tools.placed_docs import write_placed
from tests.tools.sectioned_docs import ACCESS_PDF, LEAVE_DOCX, TRIPS_HTML, write_sectioned

RULES = "правила.pdf"
BUDGET = "финансы/бюджет.xlsx"
SLIDES = "стратегия.pptx"
TRUE_QUOTE = "> Ежегодный оплачиваемый отпуск составляет 28 календарных дней."
INVENTED = "> Ежегодный оплачиваемый отпуск составляет 35 календарных дней."
NOT_FOUND_RU = RUSSIAN.quote_words.not_found
NOT_FOUND_EN = ENGLISH.quote_words.not_found


@pytest.fixture
async def placed(sandbox_dir: Path) -> None:
    """A PDF with pages, a workbook with sheets and a deck with slides in the documents."""
    await asyncio.to_thread(write_placed, sandbox_dir)


@pytest.fixture
def verifying(make_dispatcher: DispatcherFactory, placed: None) -> DispatcherFactory:
    """Dispatchers with the quote checks on, as the settings have them by default."""
    del placed

    def start(**settings: Any) -> Any:
        return make_dispatcher(quotes="verify", **settings)

    return start


def _final(harness: Harness) -> tuple[str, Any]:
    """The answer's last message as the bot wrote it (HTML), and the buttons under it."""
    for call in reversed(harness.session.calls):
        if isinstance(call, SendMessage | EditMessageText) and call.text:
            return str(call.text), call.reply_markup
    raise AssertionError("no answer was sent")


async def _ask(harness: Harness, answer: str, *reads: str, language: str = "ru") -> str:
    if reads:
        harness.llm.reply_tool_calls(*(("read_file", {"path": path}) for path in reads))
    harness.llm.reply_text(answer)
    await harness.dp.workflow_data["toolbox"].wait_synced()
    await harness.feed(harness.updates.message("сколько дней отпуска?", language_code=language))
    return _final(harness)[0]


class TestQuotesChecked:
    async def test_a_true_quote_is_not_marked_and_names_its_file_and_page(
        self, verifying: DispatcherFactory
    ) -> None:
        async with verifying() as harness:
            text = await _ask(harness, f"Отпуск — 28 дней:\n\n{TRUE_QUOTE}", RULES)
            _, markup = _final(harness)
        assert "⚠️" not in text and NOT_FOUND_RU not in text
        assert "<blockquote>" in text, "shown as Telegram's own blockquote"
        assert "— <code>правила.pdf</code>, с. 2</blockquote>" in text
        assert "<code>правила.pdf</code>, с. 1, 2, 3" in text, (
            "the sources line names the pages read"
        )
        row = markup.inline_keyboard[0]
        assert [b.text for b in row] == ["📄 правила.pdf", "🖼 с. 2"], "the quoted page offered"

    async def test_an_invented_quote_is_marked(self, verifying: DispatcherFactory) -> None:
        async with verifying() as harness:
            text = await _ask(harness, f"Отпуск — 35 дней:\n\n{INVENTED}", RULES)
            _, markup = _final(harness)
        assert "<blockquote>⚠️ Ежегодный" in text
        assert f"<i>⚠️ {NOT_FOUND_RU}</i>" in text
        assert "— <code>правила.pdf</code>, с." not in text, "no place for what is not there"
        assert [b.text for b in markup.inline_keyboard[0]] == ["📄 правила.pdf"]

    async def test_an_invented_quote_is_marked_in_english(
        self, verifying: DispatcherFactory
    ) -> None:
        async with verifying() as harness:
            text = await _ask(harness, f"Leave is 35 days:\n\n{INVENTED}", RULES, language="en")
        assert f"<i>⚠️ {NOT_FOUND_EN}</i>" in text
        assert NOT_FOUND_RU not in text

    async def test_one_true_and_one_invented_quote_each_get_their_own_mark(
        self, verifying: DispatcherFactory
    ) -> None:
        async with verifying() as harness:
            text = await _ask(harness, f"{TRUE_QUOTE}\n\nи ещё\n\n{INVENTED}", RULES)
        true_part, invented_part = text.split("и ещё")
        assert "с. 2" in true_part and "⚠️" not in true_part
        assert NOT_FOUND_RU in invented_part

    async def test_a_quote_across_a_page_break_is_found_on_the_page_it_starts(
        self, verifying: DispatcherFactory
    ) -> None:
        quote = "> Заявление на отпуск подаётся не позднее чем за две недели до его начала."
        async with verifying() as harness:
            text = await _ask(harness, quote, RULES)
        assert "⚠️" not in text
        assert "— <code>правила.pdf</code>, с. 2</blockquote>" in text

    async def test_a_quote_from_a_sheet_names_the_sheet(
        self, verifying: DispatcherFactory
    ) -> None:
        async with verifying() as harness:
            text = await _ask(harness, "> Обучение персонала | 350000 | Сидоров", BUDGET)
        assert "⚠️" not in text
        assert "— <code>бюджет.xlsx</code>, лист «Бюджет»</blockquote>" in text

    async def test_a_quote_from_a_slide_names_the_slide(
        self, verifying: DispatcherFactory
    ) -> None:
        async with verifying() as harness:
            text = await _ask(harness, "> Открытие филиала в Казани во втором квартале", SLIDES)
        assert "— <code>стратегия.pptx</code>, слайд 2</blockquote>" in text

    async def test_a_follow_up_may_quote_what_an_earlier_question_read(
        self, verifying: DispatcherFactory
    ) -> None:
        async with verifying() as harness:
            await _ask(harness, "Прочитал правила.", RULES)
            harness.llm.reply_text(TRUE_QUOTE)
            await harness.feed(harness.updates.message("а точнее?"))
            text, _ = _final(harness)
        assert "⚠️" not in text and "с. 2" in text
        assert RUSSIAN.note_not_from_documents.strip("_ℹ️ ") not in text


@pytest.fixture
def sectioned(make_dispatcher: DispatcherFactory, sandbox_dir: Path) -> DispatcherFactory:
    """Dispatchers with the quote checks on, over documents whose sections nest."""
    write_sectioned(sandbox_dir)

    def start(**settings: Any) -> Any:
        return make_dispatcher(quotes="verify", **settings)

    return start


class TestSectionsNamed:
    async def test_a_numbered_section_is_named_by_its_number(
        self, sectioned: DispatcherFactory
    ) -> None:
        quote = "> Ежегодный отпуск предоставляется продолжительностью 28 календарных дней."
        async with sectioned() as harness:
            text = await _ask(harness, quote, LEAVE_DOCX)
        assert "⚠️" not in text
        assert "— <code>отпуска.docx</code>, § 4.2 Ежегодный отпуск</blockquote>" in text
        assert "<code>положения/отпуска.docx</code>, § 4.2 Ежегодный отпуск" in text, (
            "the sources line names the section quoted"
        )

    @pytest.mark.parametrize(("language", "page"), [("ru", "с. 2"), ("en", "p. 2")])
    async def test_a_heading_inside_a_pdf_page_is_named_with_the_page(
        self, sectioned: DispatcherFactory, language: str, page: str
    ) -> None:
        quote = "> Постоянный пропуск выдаётся сроком на один год."
        async with sectioned() as harness:
            text = await _ask(harness, quote, ACCESS_PDF, language=language)
        assert f"— <code>регламент.pdf</code>, § 2.3 Пропуска, {page}</blockquote>" in text
        assert f"<code>регламент.pdf</code>, § 2.3 Пропуска, {page.rstrip('2')}1, 2" in text

    @pytest.mark.parametrize(
        ("language", "section"),
        [("ru", "раздел «Командировки › Суточные»"), ("en", "section “Командировки › Суточные”")],
    )
    async def test_an_unnumbered_section_is_named_with_its_parent(
        self, sectioned: DispatcherFactory, language: str, section: str
    ) -> None:
        quote = "> Суточные выплачиваются за каждый день поездки."
        async with sectioned() as harness:
            text = await _ask(harness, quote, TRIPS_HTML, language=language)
        assert f"— <code>командировки.html</code>, {section}</blockquote>" in text


class TestNothingRead:
    async def test_an_answer_with_nothing_read_is_labelled(
        self, verifying: DispatcherFactory
    ) -> None:
        async with verifying() as harness:
            text = await _ask(harness, "Обычно 28 дней.")
        assert "Ответ не из документов" in text

    async def test_in_english(self, verifying: DispatcherFactory) -> None:
        async with verifying() as harness:
            text = await _ask(harness, "Usually 28 days.", language="en")
        assert "Not from the documents" in text

    async def test_small_talk_is_not_labelled(self, verifying: DispatcherFactory) -> None:
        async with verifying() as harness:
            harness.llm.reply_text("Здравствуйте! Спросите о документах.")
            await harness.feed(harness.updates.message("Привет!"))
            text, _ = _final(harness)
        assert text == "Здравствуйте! Спросите о документах."

    async def test_a_search_that_found_nothing_is_labelled(
        self, verifying: DispatcherFactory
    ) -> None:
        async with verifying() as harness:
            harness.llm.reply_tool_calls(("search_files", {"query": "квантовый телепорт"}))
            text = await _ask(harness, "Кажется, об этом ничего нет.")
        assert "Ответ не из документов" in text


class TestQuotesOff:
    async def test_nothing_is_checked_or_labelled(
        self, make_dispatcher: DispatcherFactory, placed: None
    ) -> None:
        async with make_dispatcher(quotes="off") as harness:
            text = await _ask(harness, f"{INVENTED}\n\nОбычно так.", RULES)
            request = harness.llm.requests[0]
        assert "⚠️" not in text and NOT_FOUND_RU not in text
        assert "blockquote" not in str(request["messages"][0]["content"]).lower()


class TestStreamed:
    async def test_no_mark_shows_while_it_streams_and_the_final_message_has_it(
        self, verifying: DispatcherFactory, bot_session: Any
    ) -> None:
        watch = Watch.on(bot_session)
        async with verifying() as harness:
            slow_stream(harness.llm, chars=3, delay_s=0.03)
            tail = "Так написано в правилах, и это действует для всех сотрудников компании."
            text = await _ask(harness, f"Смотрите:\n\n{INVENTED}\n\n{tail}", RULES)
        drafts = watch.drafts()
        assert len(drafts) >= 2, "the answer streamed"
        streamed = [d for d in drafts if "⚠️" not in d.text]
        assert any("35 календарных" in d.text for d in streamed), "the quote streamed unmarked"
        final = watch.screen()[-1]
        assert NOT_FOUND_RU in final
        assert f"<i>⚠️ {NOT_FOUND_RU}</i>" in text
        marked = [d.text for d in drafts if "⚠️" in d.text or NOT_FOUND_RU in d.text]
        assert all(shown == final for shown in marked), "a mark shows only with the final text"

"""Page buttons beside a PDF's source button, tapped: the real Dispatcher, the fake Bot API and
model server, the real toolbox drawing pages in its worker.

A tap sends the page as a photo, captioned with the file's name and the page; every refusal a
source tap gets (a stranger, another chat, a narrower scope, a file gone, an expired button)
is a pop-up here too, and so is a page that is not there.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiogram.methods import SendChatAction, SendPhoto
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup

from bot.storage.source_links import LIFETIME_S, SourceLinks
from bot.telegram.output.source_buttons import source_buttons
from bot.telegram.texts import ENGLISH, RUSSIAN, Texts
from tests.bot.access_support import tuning
from tests.bot.button_support import put_buttons
from tests.bot.source_support import GROUP_ID, Answered, answers, ask_reading, tap
from tests.fakes.accounts import ADMIN_ID, STRANGER_ID, USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.harness import Harness
from tests.tools.picture_docgen import darkness, picture_size, shade, shaded_pdf
from tools import Toolbox

PAGES = 4
RULES = "документы/правила.pdf"
HR_RULES = "hr/правила_отпуска.pdf"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def pdfs(sandbox_dir: Path) -> None:
    """Two PDFs whose pages differ by how much of them is black."""
    for rel in (RULES, HR_RULES):
        await asyncio.to_thread((sandbox_dir / rel).write_bytes, shaded_pdf(PAGES))


@pytest.fixture
def started(make_dispatcher: Any, clock: FakeClock, pdfs: None) -> Any:
    """`started(wait=60.0, **settings)`: a harness whose taps wait `wait` seconds for a page
    before answering (long enough, by default, that every answer follows the drawing)."""
    del pdfs

    @asynccontextmanager
    async def start(wait: float = 60.0, **settings: Any) -> AsyncIterator[Harness]:
        knobs = dataclasses.replace(tuning(clock), page_answer_s=wait)
        async with make_dispatcher(tuning=knobs, **settings) as harness:
            await _toolbox(harness).wait_synced()
            yield harness

    return start


def _toolbox(harness: Harness) -> Toolbox:
    toolbox = harness.dp.workflow_data["toolbox"]
    assert isinstance(toolbox, Toolbox)
    return toolbox


async def _answer_with_pages(
    harness: Harness, path: str, pages: Sequence[int], *, group: bool = False
) -> tuple[Answered, InlineKeyboardMarkup]:
    """An answer that read `path`, and its buttons as the answer offers them with `pages`."""
    answered = await ask_reading(harness, path, group=group)
    links: SourceLinks = harness.dp.workflow_data["source_links"]
    chat_id = int(answered.message["chat"]["id"])
    markup = await source_buttons(links, chat_id, [path], {path: pages}, texts=RUSSIAN)
    assert markup is not None
    await _put(harness, answered, *(str(b.callback_data) for b in markup.inline_keyboard[0]))
    harness.session.calls.clear()
    return answered, markup


async def _put(harness: Harness, answered: Answered, *data: str) -> None:
    """The answer carries buttons with `data`, as if the bot had offered them."""
    message = answered.message
    await put_buttons(harness, message["chat"]["id"], message["message_id"], *data)


def _page_data(markup: InlineKeyboardMarkup, index: int = 0) -> str:
    return str(markup.inline_keyboard[0][1 + index].callback_data)


def _photos(harness: Harness) -> list[SendPhoto]:
    return [c for c in harness.session.calls if isinstance(c, SendPhoto)]


def _picture(sent: SendPhoto) -> bytes:
    assert isinstance(sent.photo, BufferedInputFile)
    return sent.photo.data


def _popup(harness: Harness) -> str:
    """The only thing the tap got: one pop-up; its text."""
    (answer,) = answers(harness)
    assert answer.show_alert
    assert not _photos(harness)
    assert not harness.session.sent_texts()
    return str(answer.text)


class TestButtons:
    async def test_a_pdf_gets_a_page_button_per_quoted_page_in_its_row(self, started: Any) -> None:
        async with started() as harness:
            _, markup = await _answer_with_pages(harness, RULES, [12, 3, 12, 0, 5, 7])
            (row,) = markup.inline_keyboard
            assert [b.text for b in row] == ["📄 правила.pdf", "🖼 с. 12", "🖼 с. 3", "🖼 с. 5"]
            data = [str(b.callback_data) for b in row]
            assert data[0].startswith("src:")
            assert all(d.startswith("pg:") and len(d.encode()) <= 64 for d in data[1:])
            assert not any("правила" in d or "/" in d for d in data)

    async def test_in_english_and_only_for_pdfs_and_scans(self, started: Any) -> None:
        async with started() as harness:
            links: SourceLinks = harness.dp.workflow_data["source_links"]
            sources = ["документы/рецепт_шарлотки.txt", RULES, "скан.tiff"]
            pages = {path: [2] for path in sources}
            markup = await source_buttons(links, USER_ID, sources, pages, texts=ENGLISH)
            assert markup is not None
            labels = [[b.text for b in row] for row in markup.inline_keyboard]
            assert labels == [
                ["📄 рецепт_шарлотки.txt"],
                ["📄 правила.pdf", "🖼 p. 2"],
                ["📄 скан.tiff", "🖼 p. 2"],
            ]

    async def test_at_most_six_page_buttons_in_all(self, started: Any) -> None:
        async with started() as harness:
            links: SourceLinks = harness.dp.workflow_data["source_links"]
            sources = [f"{n}.pdf" for n in range(4)]
            pages = {path: [1, 2, 3, 4] for path in sources}
            markup = await source_buttons(links, USER_ID, sources, pages, texts=RUSSIAN)
            assert markup is not None
            assert [len(row) - 1 for row in markup.inline_keyboard] == [3, 3, 0, 0]

    async def test_without_pages_the_buttons_are_as_before(self, started: Any) -> None:
        async with started() as harness:
            links: SourceLinks = harness.dp.workflow_data["source_links"]
            markup = await source_buttons(links, USER_ID, [RULES])
            assert markup is not None
            assert [[b.text for b in row] for row in markup.inline_keyboard] == [
                ["📄 правила.pdf"]
            ]


class TestTaps:
    @pytest.mark.parametrize("page", [2, PAGES])
    async def test_a_tap_sends_that_page_as_a_photo(self, started: Any, page: int) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [page])
            await tap(harness, answered, _page_data(markup))
            (sent,) = _photos(harness)
            assert darkness(_picture(sent)) == pytest.approx(shade(page, PAGES), abs=0.03)
            assert max(picture_size(_picture(sent))) == 1600
            assert sent.caption == f"правила.pdf, с. {page}"
            assert sent.chat_id == USER_ID
            assert sent.reply_parameters is not None
            assert sent.reply_parameters.message_id == answered.message["message_id"]
            (answer,) = answers(harness)
            assert not answer.show_alert

    async def test_each_page_button_opens_its_own_page(self, started: Any) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [1, 3])
            await tap(harness, answered, _page_data(markup, 1))
            await tap(harness, answered, _page_data(markup, 0))
            shades = [darkness(_picture(sent)) for sent in _photos(harness)]
            assert shades == pytest.approx([shade(3, PAGES), shade(1, PAGES)], abs=0.03)

    async def test_the_caption_is_in_the_tappers_language(self, started: Any) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [2])
            await harness.feed(
                harness.updates.callback(
                    _page_data(markup), message=answered.message, language_code="en"
                )
            )
            (sent,) = _photos(harness)
            assert sent.caption == "правила.pdf, p. 2"

    async def test_in_a_group_any_member_may_open_it(self, started: Any) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [2], group=True)
            await tap(harness, answered, _page_data(markup), user_id=ADMIN_ID)
            (sent,) = _photos(harness)
            assert sent.chat_id == GROUP_ID

    async def test_a_page_tapped_again_is_not_drawn_again(self, started: Any) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [3])
            await tap(harness, answered, _page_data(markup))
            drawn = _toolbox(harness).pages_drawn
            await tap(harness, answered, _page_data(markup))
            first, second = _photos(harness)
            assert _picture(first) == _picture(second)
            assert _toolbox(harness).pages_drawn == drawn >= 1

    async def test_a_slow_page_is_announced_at_once_and_shown_uploading(
        self, started: Any
    ) -> None:
        async with started(wait=0.0) as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [2])
            await tap(harness, answered, _page_data(markup))
            (answer,) = answers(harness)
            assert not answer.show_alert and answer.text == "🖼 Готовлю страницу 2…"
            actions = [c for c in harness.session.calls if isinstance(c, SendChatAction)]
            assert [a.action for a in actions] == ["upload_photo"]
            kinds = [type(c).__name__ for c in harness.session.calls]
            assert kinds.index("AnswerCallbackQuery") < kinds.index("SendPhoto")
            (sent,) = _photos(harness)
            assert darkness(_picture(sent)) == pytest.approx(shade(2, PAGES), abs=0.03)


class TestRefusals:
    async def test_a_stranger_is_refused(self, started: Any) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [2], group=True)
            await tap(harness, answered, _page_data(markup), user_id=STRANGER_ID)
            assert "нет доступа" in _popup(harness)

    async def test_a_private_answers_page_opens_only_for_its_user(self, started: Any) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [2])
            await tap(harness, answered, _page_data(markup), user_id=ADMIN_ID)
            assert "нет доступа" in _popup(harness)

    async def test_a_button_works_only_in_its_own_chat(self, started: Any) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [2], group=True)
            elsewhere = Answered(
                {**answered.message, "chat": {"id": -100_999, "type": "group", "title": "X"}},
                answered.markup,
            )
            await tap(harness, elsewhere, _page_data(markup))
            assert _popup(harness) == RUSSIAN.button_outdated

    async def test_a_scope_narrowed_since_the_answer_is_refused(self, started: Any) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, HR_RULES, [2], group=True)
            group = {"chat_id": GROUP_ID, "chat_type": "supergroup"}
            await harness.feed(
                harness.updates.message("/scope документы", user_id=ADMIN_ID, **group)
            )
            harness.session.calls.clear()
            await tap(harness, answered, _page_data(markup))
            assert _popup(harness) == RUSSIAN.button_no_access

    async def test_a_deleted_file_is_no_longer_there(
        self, started: Any, sandbox_dir: Path
    ) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [2])
            await asyncio.to_thread((sandbox_dir / RULES).unlink)
            await tap(harness, answered, _page_data(markup))
            assert "больше нет" in _popup(harness)

    async def test_an_expired_button_says_so(self, started: Any, clock: FakeClock) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [2])
            clock.advance(LIFETIME_S + 60)
            await tap(harness, answered, _page_data(markup))
            assert "устарела" in _popup(harness)

    @pytest.mark.parametrize("data", ["pg:", "pg:AAAAAAAAAAAA", "pg:../../etc/passwd"])
    async def test_unknown_and_malformed_page_buttons_say_expired(
        self, started: Any, data: str
    ) -> None:
        async with started() as harness:
            answered, _ = await _answer_with_pages(harness, RULES, [2])
            await _put(harness, answered, data)
            await tap(harness, answered, data)
            assert "устарела" in _popup(harness)

    async def test_a_source_buttons_id_does_not_open_a_page(self, started: Any) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [2])
            source_id = str(markup.inline_keyboard[0][0].callback_data).removeprefix("src:")
            await _put(harness, answered, f"pg:{source_id}")
            await tap(harness, answered, f"pg:{source_id}")
            assert "устарела" in _popup(harness)


class TestPagesThatCannotBeShown:
    async def test_a_page_past_the_end(self, started: Any) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [PAGES + 5])
            await tap(harness, answered, _page_data(markup))
            assert _popup(harness) == RUSSIAN.page_missing.format(page=PAGES + 5)

    async def test_a_file_replaced_by_a_shorter_one(self, started: Any, sandbox_dir: Path) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [PAGES])
            await asyncio.to_thread((sandbox_dir / RULES).write_bytes, shaded_pdf(1))
            await tap(harness, answered, _page_data(markup))
            assert "нет страницы" in _popup(harness)

    async def test_a_broken_file_is_said_plainly(self, started: Any, sandbox_dir: Path) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [1])
            await asyncio.to_thread(
                (sandbox_dir / RULES).write_bytes, b"%PDF-1.4\n" + bytes(range(256)) * 8
            )
            await tap(harness, answered, _page_data(markup))
            assert _popup(harness) == RUSSIAN.page_failed.format(page=1)

    async def test_after_the_announcement_a_missing_page_is_told_in_the_chat(
        self, started: Any
    ) -> None:
        async with started(wait=0.0) as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [PAGES + 1])
            await tap(harness, answered, _page_data(markup))
            assert not _photos(harness)
            (told,) = harness.session.sent_texts()
            assert told == _texts_line(RUSSIAN, PAGES + 1)

    async def test_a_photo_telegram_refuses_is_told_in_the_chat(self, started: Any) -> None:
        async with started() as harness:
            answered, markup = await _answer_with_pages(harness, RULES, [2])
            harness.session.add_error("sendPhoto", 400, "Bad Request: PHOTO_INVALID_DIMENSIONS")
            await tap(harness, answered, _page_data(markup))
            (told,) = harness.session.sent_texts()
            assert "Не удалось отправить <code>правила.pdf</code>" in told


def _texts_line(texts: Texts, page: int) -> str:
    """The missing page's line as the chat shows it (HTML-escaped plain text)."""
    return texts.page_missing.format(page=page)

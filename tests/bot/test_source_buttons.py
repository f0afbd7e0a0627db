"""Source buttons under answers, tapped: the real Dispatcher, the fake Bot API and model server.

An answer that read documents carries a button per document; a tap sends the file from disk,
or, for a file too large for Telegram, the page the answer read. Who may tap, and whether the
file is still there, are the other tests' business (`test_source_taps`).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from aiogram.types import FSInputFile

from bot.storage.source_links.sqlite import SqliteSourceLinks
from tests.bot.source_support import (
    CHARLOTTE,
    GROUP_ID,
    LEASE,
    answers,
    ask_reading,
    documents,
    last_markup,
    source_rows,
    tap,
)
from tests.fakes.accounts import ADMIN_ID, USER_ID
from tests.fakes.harness import Harness

ALL_VISIBLE = (
    CHARLOTTE,
    LEASE,
    "hr/отпуск.md",
    "hr/vacation_policy.md",
    "финансы/бюджет_2024.csv",
    "финансы/старый_приказ.txt",
    "it/vpn.txt",
)


class TestButtons:
    async def test_an_answer_that_read_documents_has_a_button_per_source(
        self, harness: Harness
    ) -> None:
        answered = await ask_reading(harness, CHARLOTTE, LEASE)
        assert answered.labels == ["📄 рецепт_шарлотки.txt", "📄 договор_аренды.md"]
        for data in answered.data:
            assert data.startswith("src:") and len(data.encode()) <= 64
            assert "/" not in data and "документы" not in data and "шарлотк" not in data
        assert len(set(answered.data)) == 2
        assert "Источники:" in str(answered.message["text"]), "the sources line stays"

    async def test_at_most_five_buttons(self, harness: Harness) -> None:
        answered = await ask_reading(harness, *ALL_VISIBLE)
        assert len(answered.data) == 5
        assert answered.labels[0] == "📄 рецепт_шарлотки.txt"

    async def test_an_answer_without_sources_has_only_the_vote_buttons(
        self, harness: Harness
    ) -> None:
        harness.llm.reply_text("Привет!")
        await harness.feed(harness.updates.message("привет"))
        markup = last_markup(harness)
        assert markup is not None and source_rows(markup) == []
        assert [b.text for b in markup.inline_keyboard[-1]] == ["👍", "👎"]
        assert harness.session.sent_texts()[-1] == "Привет!"

    async def test_a_long_name_is_shortened_with_its_end_kept(
        self, harness: Harness, sandbox_dir: Path
    ) -> None:
        name = "очень_длинное_название_документа_о_правилах_и_порядке_2024.txt"
        await asyncio.to_thread((sandbox_dir / name).write_text, "текст", "utf-8")
        await harness.dp.workflow_data["toolbox"].wait_synced()
        (label,) = (await ask_reading(harness, name)).labels
        assert len(label) <= 42 and "…" in label and label.endswith("рядке_2024.txt")

    async def test_a_store_that_cannot_be_written_costs_only_the_buttons(
        self, harness: Harness
    ) -> None:
        links = harness.dp.workflow_data["source_links"]
        assert isinstance(links, SqliteSourceLinks)
        await links.close()
        harness.llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
        harness.llm.reply_text("Стакан сахара.")
        await harness.feed(harness.updates.message("сколько сахара?"))
        assert "Стакан сахара." in harness.session.sent_texts()[-1]
        markup = last_markup(harness)
        assert markup is not None and source_rows(markup) == []


class TestTaps:
    async def test_a_tap_sends_the_document_from_disk(
        self, harness: Harness, sandbox_dir: Path
    ) -> None:
        answered = await ask_reading(harness, CHARLOTTE, LEASE)
        await tap(harness, answered, answered.data[0])
        (sent,) = documents(harness)
        assert sent.chat_id == USER_ID
        assert isinstance(sent.document, FSInputFile)
        assert sent.document.filename == "рецепт_шарлотки.txt"
        assert await asyncio.to_thread(
            os.path.samefile, sent.document.path, sandbox_dir / CHARLOTTE
        )
        assert sent.reply_parameters is not None
        assert sent.reply_parameters.message_id == answered.message["message_id"]
        (answer,) = answers(harness)
        assert not answer.show_alert

    async def test_each_button_opens_its_own_document(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE, LEASE)
        await tap(harness, answered, answered.data[1])
        await tap(harness, answered, answered.data[1])
        names = [d.document.filename for d in documents(harness)]  # type: ignore[union-attr]
        assert names == ["договор_аренды.md", "договор_аренды.md"]
        assert len(answers(harness)) == 2

    async def test_in_a_group_any_allowed_member_may_open_it(self, make_dispatcher: Any) -> None:
        async with make_dispatcher() as harness:
            answered = await ask_reading(harness, CHARLOTTE, group=True)
            await tap(harness, answered, answered.data[0], user_id=ADMIN_ID)
            (sent,) = documents(harness)
            assert sent.chat_id == GROUP_ID
            assert sent.reply_parameters is not None
            assert sent.reply_parameters.message_id == answered.message["message_id"]

    async def test_old_buttons_work_after_a_restart(
        self, make_dispatcher: Any, bot_session: Any
    ) -> None:
        async with make_dispatcher() as first:
            answered = await ask_reading(first, CHARLOTTE)
        async with make_dispatcher() as second:
            await tap(second, answered, answered.data[0])
            (sent,) = documents(second)
            assert sent.document.filename == "рецепт_шарлотки.txt"  # type: ignore[union-attr]
            assert len(answers(second)) == 1


class TestTooLarge:
    async def test_a_file_over_50_mb_sends_the_page_the_answer_read(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        big = sandbox_dir / "архив" / "журнал.txt"
        lines = [f"Запись {n}: смена сдана без замечаний." for n in range(150)]
        await asyncio.to_thread(_sparse_text_file, big, "\n".join(lines) + "\n", 51)
        async with make_dispatcher(max_file_mb=60) as harness:
            answered = await ask_reading(harness, "архив/журнал.txt")
            before = len(harness.session.sent_texts())
            await tap(harness, answered, answered.data[0])
            assert not documents(harness)
            notice, *page = harness.session.sent_texts()[before:]
            assert "<code>журнал.txt</code>" in notice
            assert "51,0 МБ" in notice and "50 МБ" in notice
            assert len(page) >= 2, "the page is split to fit"
            assert all(len(text) <= 4096 for text in page)
            text = "\n".join(page)
            assert "Запись 0: смена сдана без замечаний." in text
            assert "Запись 149: смена сдана без замечаний." in text
            assert "<<<" not in text and "| Запись" not in text
            assert len(answers(harness)) == 1

    async def test_a_large_file_whose_text_cannot_be_read_is_said_plainly(
        self, harness: Harness, sandbox_dir: Path
    ) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        await asyncio.to_thread(os.truncate, sandbox_dir / CHARLOTTE, 51 * 1024 * 1024)
        before = len(harness.session.sent_texts())
        await tap(harness, answered, answered.data[0])
        assert not documents(harness)
        (notice,) = harness.session.sent_texts()[before:]
        assert "<code>рецепт_шарлотки.txt</code>" in notice and "прочитать не удалось" in notice
        assert len(answers(harness)) == 1


class TestTelegramRefuses:
    async def test_flood_control_is_waited_out_once(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        harness.session.add_error("sendDocument", 429, "Too Many Requests", retry_after=2)
        await tap(harness, answered, answered.data[0])
        assert len(documents(harness)) == 2
        assert 2.0 in harness.sleep.waits

    async def test_a_refused_upload_is_told_in_the_chat(self, harness: Harness) -> None:
        answered = await ask_reading(harness, CHARLOTTE)
        harness.session.add_error("sendDocument", 400, "Bad Request: file must be non-empty")
        before = len(harness.session.sent_texts())
        await tap(harness, answered, answered.data[0])
        (told,) = harness.session.sent_texts()[before:]
        assert "Не удалось отправить <code>рецепт_шарлотки.txt</code>" in told
        assert len(answers(harness)) == 1


def _sparse_text_file(path: Path, head: str, size_mb: int) -> None:
    """Text at the start, then a hole: a file of `size_mb` that takes almost no disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head, "utf-8")
    os.truncate(path, size_mb * 1024 * 1024)

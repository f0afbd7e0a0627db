"""Admins add documents and rebuild the index; everyone else is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aiogram import Bot
from aiogram.client.telegram import TelegramAPIServer
from aiogram.types import Document

from bot.telegram.uploads import save_upload
from tests.fakes.accounts import ADMIN_ID, BOT_TOKEN, USER_ID
from tests.fakes.fake_telegram import FakeTelegramSession
from tests.fakes.harness import Harness
from tests.fakes.updates import mention_entity

NOTE = "Памятка по командировкам\n\nСуточные составляют 700 рублей в день.\n".encode()


def _last_text(harness: Harness) -> str:
    return str(harness.session.called("sendMessage")[-1].text)


def _leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob(".upload-*") if p.name != ".upload-1a2b.part"]


async def _search(harness: Harness, query: str) -> dict[str, Any]:
    toolbox = harness.dp.workflow_data["toolbox"]
    return dict(json.loads((await toolbox.execute("search_files", {"query": query})).text))


class TestUploads:
    async def test_admin_upload_is_saved_indexed_and_searchable(self, harness: Harness) -> None:
        harness.session.add_file("documents/note1", NOTE)
        await harness.feed(
            harness.updates.document(
                "командировки.txt", file_id="note1", file_size=len(NOTE), user_id=ADMIN_ID
            )
        )
        saved = harness.settings.sandbox_dir / "командировки.txt"
        assert saved.read_bytes() == NOTE
        text = _last_text(harness)
        assert "Сохранено: <code>командировки.txt</code>" in text
        assert "Извлечено символов: " in text
        found = await _search(harness, "суточные")
        assert [r["path"] for r in found["results"]] == ["командировки.txt"]
        assert not _leftovers(harness.settings.sandbox_dir)

    async def test_caption_picks_the_folder_and_names_never_clash(self, harness: Harness) -> None:
        for _ in range(2):
            harness.session.add_file("documents/note1", NOTE)
            await harness.feed(
                harness.updates.document(
                    "../../etc/Памятка.txt", file_id="note1", caption="hr/new", user_id=ADMIN_ID
                )
            )
        folder = harness.settings.sandbox_dir / "hr" / "new"
        assert sorted(p.name for p in folder.iterdir()) == ["Памятка (2).txt", "Памятка.txt"]
        assert "<code>hr/new/Памятка (2).txt</code>" in _last_text(harness)

    async def test_caption_outside_the_sandbox_is_refused(self, harness: Harness) -> None:
        harness.session.add_file("documents/note1", NOTE)
        await harness.feed(
            harness.updates.document("a.txt", file_id="note1", caption="../out", user_id=ADMIN_ID)
        )
        assert "Не могу использовать папку «../out»" in _last_text(harness)
        assert not (harness.settings.sandbox_dir.parent / "out").exists()
        assert not harness.session.called("getFile")

    async def test_oversized_upload_is_refused_before_download(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(max_upload_mb=1) as harness:
            await harness.feed(
                harness.updates.document("big.pdf", file_size=3 * 1024 * 1024, user_id=ADMIN_ID)
            )
            assert "слишком большой: 3,0 МБ" in _last_text(harness)
            assert not harness.session.called("getFile")

    async def test_file_bigger_than_announced_is_not_kept(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(max_upload_mb=0.001) as harness:
            harness.session.add_file("documents/note1", b"x" * 5000)
            await harness.feed(
                harness.updates.document(
                    "x.txt", file_id="note1", file_size=None, user_id=ADMIN_ID
                )
            )
            assert "слишком большой" in _last_text(harness)
            assert not (harness.settings.sandbox_dir / "x.txt").exists()
            assert not _leftovers(harness.settings.sandbox_dir)

    async def test_a_download_stops_as_soon_as_it_passes_the_limit(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(max_upload_mb=1) as harness:
            harness.session.add_file("documents/note1", b"x" * (20 * 1024 * 1024))
            await harness.feed(
                harness.updates.document(
                    "x.txt", file_id="note1", file_size=None, user_id=ADMIN_ID
                )
            )
            assert "слишком большой" in _last_text(harness)
            assert harness.session.streamed["documents/note1"] <= 2 * 1024 * 1024
            assert not _leftovers(harness.settings.sandbox_dir)

    async def test_disk_failure_leaves_no_partial_file(
        self, harness: Harness, bot_session: FakeTelegramSession
    ) -> None:
        bot_session.add_file_error("documents/note1", OSError(28, "No space left on device"))
        await harness.feed(
            harness.updates.document(
                "a.txt", file_id="note1", caption="новая/папка", user_id=ADMIN_ID
            )
        )
        assert "закончилось место" in _last_text(harness)
        assert not (harness.settings.sandbox_dir / "новая").exists()
        assert not _leftovers(harness.settings.sandbox_dir)

    async def test_telegram_refusing_a_big_file_is_explained(self, harness: Harness) -> None:
        harness.session.add_error("getFile", 400, "Bad Request: file is too big")
        await harness.feed(harness.updates.document("big.pdf", user_id=ADMIN_ID))
        assert "больше 20 МБ" in _last_text(harness)

    async def test_a_document_without_extractable_text_is_saved_and_says_so(
        self, harness: Harness
    ) -> None:
        harness.session.add_file("documents/pdf", b"%PDF-1.4 not really a pdf")
        await harness.feed(harness.updates.document("скан.pdf", file_id="pdf", user_id=ADMIN_ID))
        assert (harness.settings.sandbox_dir / "скан.pdf").exists()
        assert "текст из файла извлечь не удалось" in _last_text(harness)

    async def test_a_kind_the_bot_cannot_read_is_refused_and_nothing_is_written(
        self, harness: Harness
    ) -> None:
        root = harness.settings.sandbox_dir
        program = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00" + bytes(range(256)) * 8
        for name, file_id in (("tool.exe", "exe"), ("data.bin", "bin"), ("notes.xyz", "xyz")):
            harness.session.add_file(f"documents/{file_id}", program)
            await harness.feed(harness.updates.document(name, file_id=file_id, user_id=ADMIN_ID))
            reply = _last_text(harness)
            assert f"<code>{name}</code> не сохранён" in reply, reply
            assert "pdf" in reply and "docx" in reply and "eml" in reply and "json" in reply
            assert not (root / name).exists()
        assert len(harness.session.called("getFile")) == 1, "the name alone refuses exe and bin"
        assert _leftovers(root) == []
        harness.session.add_file("documents/exe", program)
        await harness.feed(
            harness.updates.document(
                "tool.exe", file_id="exe", user_id=ADMIN_ID, language_code="en"
            )
        )
        assert "<code>tool.exe</code> was not saved" in _last_text(harness)
        audit = harness.dp.workflow_data["audit"]
        assert await audit.recent() == []

    async def test_a_sentence_caption_is_not_a_folder(self, harness: Harness) -> None:
        harness.session.add_file("documents/note1", NOTE)
        caption = "Новый регламент, посмотри пожалуйста"
        await harness.feed(
            harness.updates.document("r.txt", file_id="note1", caption=caption, user_id=ADMIN_ID)
        )
        assert (harness.settings.sandbox_dir / "r.txt").read_bytes() == NOTE
        assert not (harness.settings.sandbox_dir / caption).exists()
        assert "Подпись не похожа на путь" in _last_text(harness)

    async def test_an_existing_folder_with_spaces_is_used(self, harness: Harness) -> None:
        (harness.settings.sandbox_dir / "Отдел кадров").mkdir()
        harness.session.add_file("documents/note1", NOTE)
        await harness.feed(
            harness.updates.document(
                "r.txt", file_id="note1", caption="Отдел кадров", user_id=ADMIN_ID
            )
        )
        assert (harness.settings.sandbox_dir / "Отдел кадров" / "r.txt").exists()
        assert "Подпись" not in _last_text(harness)

    async def test_every_album_item_lands_in_the_captioned_folder(self, harness: Harness) -> None:
        for index in range(3):
            harness.session.add_file(f"documents/n{index}", NOTE)
            await harness.feed(
                harness.updates.document(
                    f"part{index}.txt",
                    file_id=f"n{index}",
                    caption="hr/2024" if index == 0 else None,
                    media_group_id="album1",
                    user_id=ADMIN_ID,
                )
            )
        folder = harness.settings.sandbox_dir / "hr" / "2024"
        assert sorted(p.name for p in folder.iterdir()) == ["part0.txt", "part1.txt", "part2.txt"]

    async def test_download_timeout_is_not_a_write_failure(
        self, harness: Harness, bot_session: FakeTelegramSession
    ) -> None:
        bot_session.add_file_error("documents/note1", TimeoutError())
        await harness.feed(harness.updates.document("a.txt", file_id="note1", user_id=ADMIN_ID))
        text = _last_text(harness)
        assert "скачивался слишком долго" in text
        assert "Timeout" not in text

    async def test_admin_document_in_a_group_points_to_the_private_chat(
        self, harness: Harness
    ) -> None:
        text = "@docs_test_bot"
        await harness.feed(
            harness.updates.document(
                "a.txt",
                caption=text,
                caption_entities=[mention_entity(text, text)],
                user_id=ADMIN_ID,
                chat_id=-100,
                chat_type="supergroup",
            )
        )
        assert "в личном чате" in _last_text(harness)
        assert "только администраторы" not in _last_text(harness)
        assert not harness.session.called("getFile")


class TestNonAdmins:
    async def test_upload_without_caption_is_refused(self, harness: Harness) -> None:
        await harness.feed(harness.updates.document("a.txt", user_id=USER_ID))
        assert "только администраторы" in _last_text(harness)
        assert not harness.session.called("getFile")
        assert not harness.llm.requests
        assert not (harness.settings.sandbox_dir / "a.txt").exists()

    async def test_caption_becomes_a_question(self, harness: Harness) -> None:
        harness.llm.reply_text("28 дней.")
        await harness.feed(
            harness.updates.document("a.txt", caption="сколько дней отпуска?", user_id=USER_ID)
        )
        assert harness.llm.requests[0]["messages"][-1]["content"] == "сколько дней отпуска?"
        sent = [str(m.text) for m in harness.session.called("sendMessage")]
        assert "подпись к файлу я считаю вопросом" in sent[0]
        assert harness.session.sent_texts()[-1] == "28 дней."
        assert not harness.session.called("getFile")

    async def test_a_captioned_album_gets_one_answer_and_one_refusal(
        self, harness: Harness
    ) -> None:
        harness.llm.reply_text("28 дней.")
        for index in range(3):
            await harness.feed(
                harness.updates.document(
                    f"a{index}.txt",
                    caption="сколько дней отпуска?" if index == 0 else None,
                    media_group_id="album2",
                    user_id=USER_ID,
                )
            )
        sent = [str(m.text) for m in harness.session.called("sendMessage")]
        assert sum("только администраторы" in t for t in sent) == 1
        assert len(harness.llm.requests) == 1

    async def test_reindex_is_for_admins(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/reindex", user_id=USER_ID))
        assert "только для администраторов" in _last_text(harness)


class TestReindex:
    async def test_admin_reindex_reports_counts(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/reindex", user_id=ADMIN_ID))
        texts = [str(m.text) for m in harness.session.called("sendMessage")]
        assert texts[0] == "🔄 Перестраиваю индекс…"
        assert "Документов в поиске: 8, пропущено: 0, ошибок: 0." in texts[1]


class TestLocalBotApiServer:
    async def test_large_files_are_read_from_the_servers_disk(
        self, harness: Harness, tmp_path: Path
    ) -> None:
        served = tmp_path / "bot-api" / "documents" / "file_7.txt"
        served.parent.mkdir(parents=True)
        served.write_bytes(NOTE)
        session = FakeTelegramSession()
        session.api = TelegramAPIServer.from_base("http://127.0.0.1:8081", is_local=True)
        session.add_result(
            "getFile", {"file_id": "big", "file_unique_id": "ubig", "file_path": str(served)}
        )
        local_bot = Bot(BOT_TOKEN, session=session)
        document = Document(
            file_id="big", file_unique_id="ubig", file_name="big.txt", file_size=300 * 1024**2
        )
        toolbox = harness.dp.workflow_data["toolbox"]
        saved = await save_upload(local_bot, document, "archive", toolbox, max_mb=500)
        assert saved.path == "archive/big.txt"
        assert (harness.settings.sandbox_dir / "archive" / "big.txt").read_bytes() == NOTE
        assert served.exists(), "the server's copy is left alone"

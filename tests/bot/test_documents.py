"""Admins delete, move and restore documents from Telegram; the index follows at once."""

from __future__ import annotations

import json
import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from aiogram.methods import SendMessage

from bot.documents.manager import DocumentError, Documents
from bot.process.data_files import DataFiles
from bot.storage.audit import AuditLog
from bot.telegram.texts import texts_for
from bot.telegram.tuning import Tuning
from tests.bot.access_support import button_data, sent_to, tap, texts_to, tuning
from tests.bot.button_support import put_buttons
from tests.fakes.accounts import ADMIN_ID, USER_ID, bot_user_json
from tests.fakes.clock import FakeClock
from tests.fakes.harness import Harness
from tools.config import ToolSettings
from tools.toolbox import Toolbox

CHARLOTTE = "документы/рецепт_шарлотки.txt"
_QUESTION_ID = 900


async def _search(harness: Harness, query: str) -> list[str]:
    toolbox = harness.dp.workflow_data["toolbox"]
    found = json.loads((await toolbox.execute("search_files", {"query": query})).text)
    return [str(r["path"]) for r in found.get("results", [])]


async def _tool(harness: Harness, name: str, arguments: dict[str, Any]) -> str:
    toolbox = harness.dp.workflow_data["toolbox"]
    return str((await toolbox.execute(name, arguments)).text)


def _expect_message(harness: Harness, chat_id: int, message_id: int) -> None:
    """The next sendMessage gets `message_id`, so a test can tap the buttons under it."""
    harness.session.add_result(
        "sendMessage",
        {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": "private", "first_name": "Admin"},
            "from": bot_user_json(),
            "text": "question",
        },
    )


async def _ask(harness: Harness, command: str, user_id: int = ADMIN_ID) -> SendMessage:
    """Send a command whose answer carries buttons; that answer."""
    _expect_message(harness, user_id, _QUESTION_ID)
    await harness.feed(harness.updates.command(command, user_id=user_id))
    return sent_to(harness, user_id)[-1]


async def _confirm(
    harness: Harness, command: str, *, answer: int = 0, user_id: int = ADMIN_ID
) -> str:
    """Send a command and tap its first button (`answer` picks another); the last text."""
    question = await _ask(harness, command, user_id)
    await tap(harness, question, _QUESTION_ID, button_data(question)[answer], user_id)
    return texts_to(harness, user_id)[-1]


async def _audit(harness: Harness) -> list[tuple[str, str, str]]:
    log: AuditLog = harness.dp.workflow_data["audit"]
    return [(e.action, e.subject, e.detail) for e in await log.recent()]


class TestDelete:
    async def test_rm_asks_first_then_moves_to_the_hidden_trash_and_search_forgets_it(
        self, harness: Harness
    ) -> None:
        root = harness.settings.sandbox_dir
        assert await _search(harness, "шарлотки") == [CHARLOTTE]
        question = await _ask(harness, f"/rm {CHARLOTTE}")
        assert f"<code>{CHARLOTTE}</code>" in str(question.text)
        assert "30" in str(question.text)
        data = button_data(question)
        assert all(len(d.encode()) <= 64 and "шарлот" not in d for d in data)
        assert (root / CHARLOTTE).exists(), "nothing changes before the tap"

        await tap(harness, question, _QUESTION_ID, data[0], ADMIN_ID)
        (edit,) = harness.session.called("editMessageText")
        assert "в корзине" in str(edit.text)
        assert edit.reply_markup is None
        assert not (root / CHARLOTTE).exists()
        trashed = list((root / ".trash").rglob("рецепт_шарлотки.txt"))
        assert len(trashed) == 1
        assert await _search(harness, "шарлотки") == []
        assert await _search(harness, "*шарлот*") == []
        rel = trashed[0].relative_to(root).as_posix()
        assert "error" in json.loads(await _tool(harness, "read_file", {"path": rel}))
        listing = await _tool(harness, "list_files", {"path": "", "depth": 3})
        assert ".trash" not in listing and "шарлот" not in listing
        await harness.feed(harness.updates.command("/files", user_id=ADMIN_ID))
        assert "шарлот" not in texts_to(harness, ADMIN_ID)[-1]
        assert await _audit(harness) == [("delete", CHARLOTTE, "")]

    async def test_a_second_tap_and_cancel_change_nothing(self, harness: Harness) -> None:
        root = harness.settings.sandbox_dir
        question = await _ask(harness, f"/rm {CHARLOTTE}")
        yes, cancel = button_data(question)
        await tap(harness, question, _QUESTION_ID, cancel, ADMIN_ID)
        assert "Отменено" in texts_to(harness, ADMIN_ID)[-1]
        await tap(harness, question, _QUESTION_ID, yes, ADMIN_ID)
        (expired,) = [a for a in harness.session.called("answerCallbackQuery") if a.text]
        assert "устарела" in str(expired.text)
        assert (root / CHARLOTTE).exists()
        assert await _search(harness, "шарлотки") == [CHARLOTTE]
        assert await _audit(harness) == []

    async def test_a_folder_goes_to_the_trash_whole(self, harness: Harness) -> None:
        reply = await _confirm(harness, "/rm hr")
        assert "<code>hr</code>" in reply
        assert not (harness.settings.sandbox_dir / "hr").exists()
        assert await _search(harness, "отпуск") == []


class TestTrash:
    async def test_restore_brings_the_file_back_searchable(self, harness: Harness) -> None:
        root = harness.settings.sandbox_dir
        await _confirm(harness, f"/rm {CHARLOTTE}")
        listing = await _ask(harness, "/trash")
        assert f"<code>{CHARLOTTE}</code>" in str(listing.text)
        (restore,) = button_data(listing)
        assert len(restore.encode()) <= 64 and "шарлот" not in restore

        await tap(harness, listing, _QUESTION_ID, restore, ADMIN_ID)
        assert "Возвращено" in texts_to(harness, ADMIN_ID)[-1]
        assert (root / CHARLOTTE).exists()
        assert await _search(harness, "шарлотки") == [CHARLOTTE]
        assert [a for a, _, _ in await _audit(harness)] == ["delete", "restore"]
        await harness.feed(harness.updates.command("/trash", user_id=ADMIN_ID))
        assert "Корзина пуста" in texts_to(harness, ADMIN_ID)[-1]

    async def test_restore_never_overwrites_a_new_file_of_the_same_name(
        self, harness: Harness
    ) -> None:
        root = harness.settings.sandbox_dir
        await _confirm(harness, f"/rm {CHARLOTTE}")
        (root / CHARLOTTE).write_text("новый рецепт", encoding="utf-8")
        listing = await _ask(harness, "/trash")
        await tap(harness, listing, _QUESTION_ID, button_data(listing)[0], ADMIN_ID)
        reply = texts_to(harness, ADMIN_ID)[-1]
        assert "снова существует" in reply and "ничего не перезаписано" in reply
        assert (root / CHARLOTTE).read_text(encoding="utf-8") == "новый рецепт"
        assert len(list((root / ".trash").rglob("рецепт_шарлотки.txt"))) == 1
        assert [a for a, _, _ in await _audit(harness)] == ["delete"]

    async def test_old_trash_is_emptied_at_start_after_trash_days(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock(time.time())
        async with make_dispatcher(tuning=tuning(clock), trash_days=2) as harness:
            await _confirm(harness, f"/rm {CHARLOTTE}")
        clock.advance(3 * 86400)
        async with make_dispatcher(tuning=tuning(clock), trash_days=2) as harness:
            assert not list((sandbox_dir / ".trash").rglob("рецепт_шарлотки.txt"))
            await harness.feed(harness.updates.command("/trash", user_id=ADMIN_ID))
            assert "Корзина пуста" in texts_to(harness, ADMIN_ID)[-1]


class TestMove:
    async def test_mv_into_a_new_folder_and_search_finds_the_new_path(
        self, harness: Harness
    ) -> None:
        root = harness.settings.sandbox_dir
        reply = await _confirm(harness, "/mv hr/отпуск.md архив/")
        assert "<code>архив/отпуск.md</code>" in reply
        assert not (root / "hr/отпуск.md").exists()
        assert (root / "архив/отпуск.md").exists()
        found = await _search(harness, "заявление отпуск")
        assert "архив/отпуск.md" in found and "hr/отпуск.md" not in found
        assert await _audit(harness) == [("move", "hr/отпуск.md", "архив/отпуск.md")]

    async def test_a_name_with_spaces_in_quotes_and_a_rename(self, harness: Harness) -> None:
        root = harness.settings.sandbox_dir
        await _confirm(harness, '/mv README.md "старые файлы/readme old.md"')
        assert (root / "старые файлы/readme old.md").exists()

    async def test_an_existing_target_is_refused_before_any_button(self, harness: Harness) -> None:
        root = harness.settings.sandbox_dir
        await harness.feed(
            harness.updates.command("/mv hr/отпуск.md hr/vacation_policy.md", user_id=ADMIN_ID)
        )
        (reply,) = sent_to(harness, ADMIN_ID)
        assert "уже есть" in str(reply.text) and reply.reply_markup is None
        assert (root / "hr/отпуск.md").exists()
        assert b"Vacation policy" in (root / "hr/vacation_policy.md").read_bytes()

    async def test_a_folder_cannot_go_into_itself(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/mv hr hr/inner", user_id=ADMIN_ID))
        assert "в саму себя" in texts_to(harness, ADMIN_ID)[-1]


class TestRefusals:
    async def test_a_user_who_is_not_an_admin_is_refused(self, harness: Harness) -> None:
        for command in (f"/rm {CHARLOTTE}", "/mv README.md x.md", "/trash", "/audit"):
            await harness.feed(harness.updates.command(command, user_id=USER_ID))
        replies = texts_to(harness, USER_ID)
        assert len(replies) == 4
        assert all("только для администраторов" in r for r in replies), replies
        assert not any(s.reply_markup for s in sent_to(harness, USER_ID))
        assert (harness.settings.sandbox_dir / CHARLOTTE).exists()

    async def test_an_admins_button_does_nothing_for_anyone_else(self, harness: Harness) -> None:
        question = await _ask(harness, f"/rm {CHARLOTTE}")
        await tap(harness, question, _QUESTION_ID, button_data(question)[0], USER_ID)
        assert (harness.settings.sandbox_dir / CHARLOTTE).exists()
        await tap(harness, question, _QUESTION_ID, button_data(question)[0], ADMIN_ID)
        assert not (harness.settings.sandbox_dir / CHARLOTTE).exists()

    async def test_paths_leaving_the_folder_hidden_or_missing_are_refused(
        self, harness: Harness, tmp_path: Path
    ) -> None:
        outside = tmp_path / "outside.txt"
        outside.write_text("не трогать")
        (harness.settings.sandbox_dir / "link.txt").symlink_to(
            harness.settings.sandbox_dir / "README.md"
        )
        expected = {
            "/rm ../outside.txt": "за пределы папки",
            "/rm документы/../../outside.txt": "за пределы папки",
            f"/rm {outside}": "использовать нельзя",
            "/rm .secret.txt": "использовать нельзя",
            "/rm .trash": "использовать нельзя",
            "/rm нет_такого.txt": "нет <code>нет_такого.txt</code>",
            "/rm .": "Саму папку",
            "/rm link.txt": "это ссылка",
            "/rm": "Укажите файл или папку",
            "/mv README.md ../README.md": "за пределы папки",
            "/mv README.md": "Укажите, что и куда",
        }
        for command, phrase in expected.items():
            await harness.feed(harness.updates.command(command, user_id=ADMIN_ID))
            reply = sent_to(harness, ADMIN_ID)[-1]
            assert phrase in str(reply.text), (command, reply.text)
            assert reply.reply_markup is None
        assert outside.read_text() == "не трогать"
        assert (harness.settings.sandbox_dir / ".secret.txt").exists()
        assert await _audit(harness) == []

    async def test_documents_are_managed_in_private_only(self, harness: Harness) -> None:
        await harness.feed(
            harness.updates.command(
                f"/rm {CHARLOTTE}", user_id=ADMIN_ID, chat_id=-100500, chat_type="supergroup"
            )
        )
        assert "в личном чате" in texts_to(harness, -100500)[-1]
        assert (harness.settings.sandbox_dir / CHARLOTTE).exists()


class TestWhatTheJailSettledOn:
    @pytest.mark.parametrize(
        "command",
        [
            "/rm nope/../link.txt",
            "/rm nope/../hrlink",
            "/rm deeplink/../link.txt",
            "/rm ёлка.txt",
            "/mv nope/../link.txt документы/",
            "/mv ёлка.txt документы/",
            '/rm "link.txt "',
            '/mv "hrlink " документы/',
        ],
        ids=[
            "dotdot",
            "folder-link",
            "through-a-link",
            "decomposed-name",
            "mv-dotdot",
            "mv-nfd",
            "trailing-space",
            "mv-trailing-space",
        ],
    )
    async def test_a_link_is_refused_however_its_path_is_written(
        self, harness: Harness, command: str
    ) -> None:
        root = harness.settings.sandbox_dir
        (root / "link.txt").symlink_to(root / "README.md")
        (root / "hrlink").symlink_to(root / "hr")
        (root / "документы" / "вложенная").mkdir()
        (root / "deeplink").symlink_to(root / "документы" / "вложенная")  # `..`: документы/
        (root / unicodedata.normalize("NFD", "ёлка.txt")).symlink_to(root / "README.md")
        await harness.feed(harness.updates.command(command, user_id=ADMIN_ID))
        reply = sent_to(harness, ADMIN_ID)[-1]
        assert "это ссылка" in str(reply.text), reply.text
        assert reply.reply_markup is None
        assert (root / "README.md").exists()
        assert (root / "hr/отпуск.md").exists()

    async def test_a_folder_holding_the_bots_data_is_neither_deleted_nor_moved(
        self, sandbox_dir: Path
    ) -> None:
        # The settings refuse DATA_DIR inside the documents folder at start; this is the
        # second line, for settings that were bypassed.
        data_dir = sandbox_dir / "архив" / "данные бота"
        data_dir.mkdir(parents=True)
        files = DataFiles(data_dir)
        files.access.write_bytes(b"")
        unchecked = ToolSettings.model_construct(sandbox_dir=sandbox_dir, data_dir=data_dir)
        box = Toolbox(unchecked, private_files=files.private_files())
        await box.start()
        try:
            documents = Documents(box)
            for rel in ("архив", "документы/../архив/"):
                with pytest.raises(DocumentError) as refused:
                    await documents.existing(rel)
                assert refused.value.problem == "protected", rel
                with pytest.raises(DocumentError) as refused:
                    await documents.move_target(rel, "старое/")
                assert refused.value.problem == "protected", rel
            assert await documents.existing("документы") == "документы"
        finally:
            await box.close()
        assert files.access.exists()
        assert not (sandbox_dir / ".trash").exists()

    def test_the_refusal_is_worded_for_the_admin(self) -> None:
        assert "DATA_DIR" in texts_for("ru").path_problems["protected"]
        assert "DATA_DIR" in texts_for("en").path_problems["protected"]


class TestAudit:
    async def test_admin_actions_are_kept_across_a_restart_and_shown(
        self, make_dispatcher: Any
    ) -> None:
        clock = FakeClock(1_780_000_000.0)
        settings_tuning: Tuning = tuning(clock)
        async with make_dispatcher(tuning=settings_tuning) as harness:
            await _confirm(harness, f"/rm {CHARLOTTE}")
            await _confirm(harness, "/mv README.md docs/")
            await harness.feed(harness.updates.command("/allow 4242", user_id=ADMIN_ID))
            await harness.feed(harness.updates.command("/deny 4242", user_id=ADMIN_ID))
            harness.session.add_file("documents/note1", b"notes")
            await harness.feed(
                harness.updates.document("note.txt", file_id="note1", user_id=ADMIN_ID)
            )
        async with make_dispatcher(tuning=settings_tuning) as harness:
            assert [a for a, _, _ in await _audit(harness)] == [
                "delete",
                "move",
                "grant",
                "revoke",
                "upload",
            ]
            await harness.feed(harness.updates.command("/audit", user_id=ADMIN_ID))
            shown = texts_to(harness, ADMIN_ID)[-1]
            lines = shown.splitlines()
            assert "Последние действия администраторов" in lines[0]
            assert len(lines) == 6
            assert f"User{ADMIN_ID}: удалил(а) <code>{CHARLOTTE}</code>" in lines[1]
            assert "перенёс(ла) <code>README.md</code> (docs/README.md)" in lines[2]
            assert "дал(а) доступ <code>4242</code>" in lines[3]
            assert "забрал(а) доступ у <code>4242</code>" in lines[4]
            assert "загрузил(а) <code>note.txt</code>" in lines[5]
            assert all(line.startswith("2026-05-28 ") for line in lines[1:])


class TestScoped:
    async def test_an_admin_works_within_the_scope_of_the_chat(
        self, make_dispatcher: Any, tmp_path: Path, sandbox_dir: Path
    ) -> None:
        async with make_dispatcher() as harness:
            await _confirm(harness, "/rm hr/отпуск.md")
        outside_item = next((sandbox_dir / ".trash").glob("*.json")).stem
        scopes = tmp_path / "scopes.toml"
        scopes.write_text(f'{ADMIN_ID} = ["документы"]\n', encoding="utf-8")
        async with make_dispatcher(scopes_file=scopes) as harness:
            for command in (
                "/rm hr/vacation_policy.md",
                "/rm hr",
                "/mv документы/договор_аренды.md hr/",
                "/mv hr/vacation_policy.md документы/",
            ):
                await harness.feed(harness.updates.command(command, user_id=ADMIN_ID))
                reply = sent_to(harness, ADMIN_ID)[-1]
                assert "нет <code>" in str(reply.text), (command, reply.text)
                assert reply.reply_markup is None
            assert (sandbox_dir / "hr/vacation_policy.md").exists()

            await _confirm(harness, f"/rm {CHARLOTTE}")
            listing = await _ask(harness, "/trash")
            assert CHARLOTTE in str(listing.text) and "отпуск" not in str(listing.text)
            assert len(button_data(listing)) == 1
            kept = f"restore:{outside_item}"  # as a listing made before the scope was set had it
            await put_buttons(harness, ADMIN_ID, _QUESTION_ID, kept)
            await tap(harness, listing, _QUESTION_ID, kept, ADMIN_ID)
            assert not (sandbox_dir / "hr/отпуск.md").exists()
            (gone,) = [a for a in harness.session.called("answerCallbackQuery") if a.text]
            assert "уже нет в корзине" in str(gone.text)

    async def test_a_scope_change_is_in_the_audit_log(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/scope hr", user_id=ADMIN_ID))
        await harness.feed(harness.updates.command("/scope reset", user_id=ADMIN_ID))
        assert await _audit(harness) == [
            ("scope", str(ADMIN_ID), "hr"),
            ("scope", str(ADMIN_ID), "SCOPES_FILE"),
        ]
        await harness.feed(harness.updates.command("/audit", user_id=ADMIN_ID))
        assert (
            f"задал(а) область для <code>{ADMIN_ID}</code> (hr)" in texts_to(harness, ADMIN_ID)[-1]
        )

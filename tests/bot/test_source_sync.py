"""The mirrored sources as admins see them in Telegram: `/sources`, the question a held-back mass
deletion sends to the admins with its confirm button, "Keep", "Sync now", the notices that a
source broke or works again, scopes and secrets.

A real `Sources` runs in the bot over the real documents folder; its remote is the in-memory
server of `tests.fakes.memory_source`, opened in place of the configured kind.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiogram.methods import EditMessageText, SendMessage

from bot.documents.sources.remote import SourceError
from bot.storage.audit import AuditLog
from tests.bot.access_support import button_data, sent_to, tap, texts_to, tuning
from tests.bot.test_documents import _expect_message
from tests.fakes.accounts import ADMIN_ID, USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.harness import Harness
from tests.fakes.mirrored_sources import (
    OTHER_ADMIN,
    SECRET,
    Passes,
    Remotes,
    source_settings,
    sources_of,
    stocked_remotes,
)

QUESTION_ID = 910
LISTING_ID = 920

Start = Callable[..., AbstractAsyncContextManager[Harness]]


@pytest.fixture
def remotes() -> Remotes:
    return stocked_remotes()


@pytest.fixture
def start(
    make_dispatcher: Any, remotes: Remotes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Start:
    """The bot with the two sources, their passwords set; the passes at start done."""
    defaults = source_settings(remotes, tmp_path, monkeypatch)

    @asynccontextmanager
    async def started(**settings: Any) -> AsyncIterator[Harness]:
        async with make_dispatcher(**(defaults | settings)) as harness:
            await sources_of(harness).started()
            yield harness

    return started


async def listing(harness: Harness, user_id: int = ADMIN_ID) -> SendMessage:
    _expect_message(harness, user_id, LISTING_ID)
    await harness.feed(harness.updates.command("/sources", user_id=user_id))
    return sent_to(harness, user_id)[-1]


async def hold_back_a_third(harness: Harness, remotes: Remotes) -> None:
    """Three of the ten files go at the source: the pass asks the admins instead."""
    for index in range(3):
        remotes.made["nextcloud"].remove(f"f{index}.txt")
    _expect_message(harness, ADMIN_ID, QUESTION_ID)
    outcome = await sources_of(harness).sync("nextcloud")
    assert outcome is not None and outcome.asked


async def audit_of(harness: Harness) -> list[tuple[str, str, str, str]]:
    log: AuditLog = harness.dp["audit"]
    return [(e.action, e.subject, e.actor_name, e.detail) for e in await log.recent()]


class TestTheListing:
    async def test_each_source_its_kind_folder_last_sync_and_counts(
        self, start: Start, remotes: Remotes
    ) -> None:
        remotes.made["contracts"].fail_listing = SourceError(
            "auth", "s3.example.com refused the key"
        )
        async with start() as harness:
            await sources_of(harness).sync("contracts")
            sent = await listing(harness)
        text = str(sent.text)
        assert "<b>nextcloud</b> (webdav) → <code>nextcloud/</code>, каждые 15 минут" in text
        assert "Последняя синхронизация: только что (" in text
        assert "добавлено 10, изменено 0, перенесено 0, удалено 0" in text
        assert "<b>contracts</b> (s3)" in text
        assert "⚠️ Сбой только что: the listing failed (auth): s3.example.com refused the key" in (
            text
        )
        assert button_data(sent)[0].startswith("mirror:s:")
        assert all(len(d.encode()) <= 64 for d in button_data(sent))

    async def test_in_english_with_no_sources_it_says_how_to_add_them(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher() as harness:
            await harness.feed(
                harness.updates.command("/sources", user_id=ADMIN_ID, language_code="en")
            )
            text = texts_to(harness, ADMIN_ID)[-1]
        assert "No sources are configured" in text
        assert "SOURCES_FILE" in text and "docs/sources/index.md" in text

    async def test_others_get_the_admin_only_notice_and_groups_the_private_one(
        self, start: Start
    ) -> None:
        async with start() as harness:
            await harness.feed(harness.updates.command("/sources"))
            assert "nextcloud" not in texts_to(harness, USER_ID)[-1]
            await harness.feed(
                harness.updates.command(
                    "/sources", user_id=ADMIN_ID, chat_id=-100500, chat_type="supergroup"
                )
            )
            assert "nextcloud" not in texts_to(harness, -100500)[-1]

    async def test_sync_now_runs_a_pass_and_edits_the_message(
        self, start: Start, remotes: Remotes
    ) -> None:
        async with start() as harness:
            sent = await listing(harness)
            remotes.made["nextcloud"].put("new.txt", "a new document")
            await tap(harness, sent, LISTING_ID, button_data(sent)[0], ADMIN_ID)
            (edit,) = harness.session.called("editMessageText")
        assert str(edit.text).startswith("🔄 nextcloud: синхронизировано. Последний проход: ")
        assert "добавлено 1" in str(edit.text)
        assert edit.reply_markup is not None


class TestTheHeldBackDeletion:
    async def test_every_admin_is_asked_and_a_confirmation_deletes_to_the_trash(
        self, start: Start, remotes: Remotes
    ) -> None:
        async with start() as harness:
            root = harness.settings.sandbox_dir
            await hold_back_a_third(harness, remotes)
            (question,) = sent_to(harness, ADMIN_ID)
            (other,) = sent_to(harness, OTHER_ADMIN)
            text = str(question.text)
            assert "Source <b>nextcloud</b> (<code>nextcloud/</code>): the sync would" in text
            assert "3 of 10 files (30 %)" in text
            assert "• <code>nextcloud/f0.txt</code>" in text
            assert "Nothing was deleted." in text
            assert str(other.text) == text
            assert (root / "nextcloud" / "f0.txt").exists()
            yes, keep = button_data(question)
            assert yes.startswith("mirror:y:") and keep.startswith("mirror:n:")

            passes = Passes(sources_of(harness))
            await tap(harness, question, QUESTION_ID, yes, ADMIN_ID)
            (edit,) = harness.session.called("editMessageText")
            assert "Подтверждено: файлы удаляются сейчас" in str(edit.text)
            assert edit.reply_markup is None
            done = await passes.next()  # the background pass the confirmation woke
            assert done.last is not None and done.last.removed == 3
            assert done.pending is None
            assert not (root / "nextcloud" / "f0.txt").exists()
            assert len(list((root / ".trash").rglob("f0.txt"))) == 1
            entries = await audit_of(harness)
        assert entries[0][:2] == ("confirm", "nextcloud")
        assert entries[0][3] == "source nextcloud: delete 3 of 10 files"
        assert entries[0][2] != "source:nextcloud"
        assert sorted(e[1] for e in entries[1:]) == [f"nextcloud/f{i}.txt" for i in range(3)]
        assert {e[2] for e in entries[1:]} == {"source:nextcloud"}

    async def test_a_stale_token_deletes_nothing_and_says_so(
        self, start: Start, remotes: Remotes
    ) -> None:
        async with start() as harness:
            root = harness.settings.sandbox_dir
            await hold_back_a_third(harness, remotes)
            (question,) = sent_to(harness, ADMIN_ID)
            yes = button_data(question)[0]
            remotes.made["nextcloud"].remove("f3.txt")  # the set changes: asked anew
            _expect_message(harness, ADMIN_ID, QUESTION_ID + 1)
            await sources_of(harness).sync("nextcloud")
            assert len(sent_to(harness, ADMIN_ID)) == 2
            await tap(harness, question, QUESTION_ID, yes, ADMIN_ID)
            (edit,) = harness.session.called("editMessageText")
            assert "Этот вопрос устарел" in str(edit.text)
            assert (root / "nextcloud" / "f0.txt").exists()
            assert await audit_of(harness) == []

    async def test_keep_leaves_the_files_and_the_same_set_is_not_asked_again(
        self, start: Start, remotes: Remotes
    ) -> None:
        async with start() as harness:
            root = harness.settings.sandbox_dir
            await hold_back_a_third(harness, remotes)
            (question,) = sent_to(harness, ADMIN_ID)
            await tap(harness, question, QUESTION_ID, button_data(question)[1], ADMIN_ID)
            (edit,) = harness.session.called("editMessageText")
            assert "Оставлено: ничего не удалено" in str(edit.text)
            outcome = await sources_of(harness).sync("nextcloud")
            assert outcome is not None and not outcome.asked
            assert len(sent_to(harness, ADMIN_ID)) == 1
            assert (root / "nextcloud" / "f0.txt").exists()
            sent = await listing(harness)
            assert "⏸ Отложено: 3 из 10 файлов (30 %)" in str(sent.text)
            assert any(d == button_data(question)[0] for d in button_data(sent))

    async def test_a_tap_on_another_message_is_refused(
        self, start: Start, remotes: Remotes
    ) -> None:
        async with start() as harness:
            await hold_back_a_third(harness, remotes)
            (question,) = sent_to(harness, ADMIN_ID)
            await tap(harness, question, QUESTION_ID + 50, button_data(question)[0], ADMIN_ID)
            assert harness.session.called("editMessageText") == []
            assert (harness.settings.sandbox_dir / "nextcloud" / "f0.txt").exists()


BROKEN = SourceError("unreachable", "the server closed the connection mid-listing")


def notices_to(harness: Harness, chat_id: int) -> list[str]:
    """The notices that a source broke or works again one admin got, at the start too."""
    sent = [*harness.startup_calls, *harness.session.calls]
    return [
        str(m.text)
        for m in sent
        if isinstance(m, SendMessage)
        and m.chat_id == chat_id
        and str(m.text).startswith(("⚠️ Source", "✅ Source", "⚠️ Источник", "✅ Источник"))
    ]


class TestTheNoticesOfAFailure:
    async def test_each_admin_is_told_once_and_once_more_when_it_works_again(
        self, start: Start, remotes: Remotes
    ) -> None:
        remote = remotes.made["nextcloud"]
        async with start() as harness:
            root = harness.settings.sandbox_dir
            remote.fail_listing = BROKEN
            remote.remove("f0.txt")
            await sources_of(harness).sync("nextcloud")
            (told,) = notices_to(harness, ADMIN_ID)
            assert notices_to(harness, OTHER_ADMIN) == [told]
            assert told == (
                "⚠️ Source <b>nextcloud</b> (<code>nextcloud/</code>) failed: the listing "
                "failed (unreachable): the server closed the connection mid-listing\n"
                "Nothing was deleted: the folder stays as it was. You will be told when it "
                "works again."
            )
            assert (root / "nextcloud" / "f0.txt").exists()

            await sources_of(harness).sync("nextcloud")  # still failing: nothing more
            assert len(notices_to(harness, ADMIN_ID)) == 1

            remote.fail_listing = None
            remote.put("new.txt", "a new document")
            await sources_of(harness).sync("nextcloud")
            await sources_of(harness).sync("nextcloud")  # working: nothing more either
            for admin in (ADMIN_ID, OTHER_ADMIN):
                assert notices_to(harness, admin)[1:] == [
                    "✅ Source <b>nextcloud</b> (<code>nextcloud/</code>) works again. Last "
                    "pass: 1 added, 0 changed, 0 moved, 1 removed."
                ]
            assert not (root / "nextcloud" / "f0.txt").exists()

    async def test_a_restart_does_not_tell_again(self, start: Start, remotes: Remotes) -> None:
        remotes.made["contracts"].fail_listing = BROKEN
        async with start() as harness:  # the first pass fails: told
            assert len(notices_to(harness, ADMIN_ID)) == 1
            harness.session.calls.clear()  # what the next run sends, from here on
        async with start() as harness:  # and fails again after the restart
            await sources_of(harness).sync("contracts")
            assert notices_to(harness, ADMIN_ID) == []
            remotes.made["contracts"].fail_listing = None
            await sources_of(harness).sync("contracts")
            (again,) = notices_to(harness, ADMIN_ID)
        assert again.startswith("✅ Source <b>contracts</b> (<code>contracts/</code>) works again")

    async def test_a_source_still_failing_a_day_later_is_mentioned_once_a_day(
        self, start: Start, remotes: Remotes
    ) -> None:
        clock = FakeClock()
        remotes.made["contracts"].fail_listing = BROKEN
        async with start(tuning=tuning(clock)) as harness:
            _expect_message(harness, ADMIN_ID, LISTING_ID)
            await harness.feed(harness.updates.command("/sources", user_id=ADMIN_ID))
            clock.advance(86400 - 60)
            await sources_of(harness).sync("contracts")
            assert len(notices_to(harness, ADMIN_ID)) == 1
            clock.advance(60)
            await sources_of(harness).sync("contracts")
            clock.advance(3600)
            await sources_of(harness).sync("contracts")
            first, *reminders = notices_to(harness, ADMIN_ID)
        assert first.startswith("⚠️ Source <b>contracts</b>")
        assert reminders == [  # in the language the admin spoke since
            "⚠️ Источник <b>contracts</b> (<code>contracts/</code>) всё ещё не работает, уже "
            "1 день: the listing failed (unreachable): the server closed the connection "
            "mid-listing\nНичего не удалено. Когда он снова заработает, придёт сообщение."
        ]


class TestAScopedAdmin:
    async def test_sees_and_is_asked_about_only_the_sources_in_their_folders(
        self, start: Start, remotes: Remotes, tmp_path: Path
    ) -> None:
        scopes = tmp_path / "scopes.toml"
        scopes.write_text(f'{OTHER_ADMIN} = ["contracts"]\n', encoding="utf-8")
        async with start(scopes_file=scopes) as harness:
            sent = await listing(harness, OTHER_ADMIN)
            assert "contracts" in str(sent.text)
            assert "nextcloud" not in str(sent.text)
            assert len(button_data(sent)) == 1
            await hold_back_a_third(harness, remotes)
            assert len(sent_to(harness, ADMIN_ID)) == 1
            assert len(sent_to(harness, OTHER_ADMIN)) == 1  # only the listing
            question = sent_to(harness, ADMIN_ID)[0]
            harness.session.add_result("answerCallbackQuery", True)
            update = harness.updates.callback(
                button_data(question)[0],
                user_id=OTHER_ADMIN,
                message={
                    "message_id": LISTING_ID,
                    "date": 0,
                    "chat": {"id": OTHER_ADMIN, "type": "private", "first_name": "A"},
                    "text": "x",
                },
            )
            await harness.feed(update)
            assert (harness.settings.sandbox_dir / "nextcloud" / "f0.txt").exists()

    async def test_is_told_only_of_the_sources_in_their_folders_failing(
        self, start: Start, remotes: Remotes, tmp_path: Path
    ) -> None:
        scopes = tmp_path / "scopes.toml"
        scopes.write_text(f'{OTHER_ADMIN} = ["contracts"]\n', encoding="utf-8")
        async with start(scopes_file=scopes) as harness:
            remotes.made["nextcloud"].fail_listing = BROKEN
            await sources_of(harness).sync("nextcloud")
            assert len(notices_to(harness, ADMIN_ID)) == 1
            assert notices_to(harness, OTHER_ADMIN) == []
            remotes.made["contracts"].fail_listing = BROKEN
            await sources_of(harness).sync("contracts")
            (told,) = notices_to(harness, OTHER_ADMIN)
        assert told.startswith("⚠️ Source <b>contracts</b>")


class TestNoSecret:
    async def test_no_password_key_or_address_in_any_message_or_log(
        self, start: Start, remotes: Remotes, caplog: pytest.LogCaptureFixture
    ) -> None:
        caplog.set_level(logging.DEBUG)
        remotes.made["contracts"].fail_listing = SourceError("auth", "s3.example.com refused")
        async with start() as harness:
            await hold_back_a_third(harness, remotes)
            await sources_of(harness).sync("contracts")
            sent = await listing(harness)
            await tap(harness, sent, LISTING_ID, button_data(sent)[0], ADMIN_ID)
            calls = [
                str(c.text)
                for c in harness.session.calls
                if isinstance(c, SendMessage | EditMessageText)
            ]
        assert calls
        said = "\n".join(calls) + "\n".join(r.getMessage() for r in caplog.records)
        for secret in (SECRET, "AKIA-not-shown", "cloud.example.com", "alice", "remote.php"):
            assert secret not in said

    async def test_the_failure_notice_holds_no_secret_the_client_quoted(
        self, start: Start, remotes: Remotes
    ) -> None:
        remotes.made["nextcloud"].fail_listing = RuntimeError(
            f"GET https://alice:{SECRET}@cloud.example.com/remote.php/dav failed"
        )
        async with start() as harness:
            await sources_of(harness).sync("nextcloud")
            (told,) = notices_to(harness, ADMIN_ID)
        assert "failed: the listing failed unexpectedly (RuntimeError)\nNothing was" in told
        for secret in (SECRET, "cloud.example.com", "alice", "remote.php"):
            assert secret not in told

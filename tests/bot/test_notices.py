"""Change notices: a chat subscribes to a folder and hears, once its folder has been quiet, of
the documents that appeared, changed, moved or went there, also while no bot ran; never of one
outside what it may see when the notice is sent, once across workers and restarts."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path
from typing import Any

from bot.digests.notices.audience import Audience
from bot.digests.notices.changes import FolderChanges
from bot.storage import PostgresDatabase
from bot.storage.notices import NoticeStore
from bot.storage.notices.postgres import PostgresNotices
from bot.telegram.change_notices import ChangeNotices
from tests.bot.access_support import sent_to, texts_to, tuning
from tests.bot.source_support import in_topic
from tests.bot.test_documents import _confirm
from tests.fakes.accounts import ADMIN_ID, USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.harness import Harness
from tools import INDEX_FILE, Toolbox
from tools.config import ToolSettings

GROUP_ID = -100_777
QUIET = 300.0
POLICY = "Положение об отпусках 2025.txt"
_DIGEST = re.compile(r"^🔔 (Новое|Изменения|Изменено|Удалено|Перемещено|New|Changes|Changed) ")


def digests_to(harness: Harness, chat_id: int) -> list[str]:
    """The change notices one chat got, in order."""
    return [t for t in texts_to(harness, chat_id) if _DIGEST.match(t)]


async def command(
    harness: Harness,
    text: str,
    user_id: int = USER_ID,
    chat_id: int | None = None,
    topic: int | None = None,
) -> str:
    """A command in the sender's private chat (or in `chat_id`, a group, in forum topic
    `topic`); the reply."""
    if chat_id is None:
        await harness.feed(harness.updates.command(text, user_id=user_id))
        return texts_to(harness, user_id)[-1]
    extra = in_topic(topic) if topic is not None else {}
    await harness.feed(
        harness.updates.command(
            text, user_id=user_id, chat_id=chat_id, chat_type="supergroup", **extra
        )
    )
    return texts_to(harness, chat_id)[-1]


def drop(sandbox_dir: Path, rel: str, text: str = "текст") -> None:
    path = sandbox_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


async def tick(harness: Harness, clock: FakeClock) -> int:
    """Let the index catch up with the folder, then one step of the notices' schedule."""
    await harness.services.toolbox.wait_synced()
    notices: ChangeNotices = harness.dp["change_notices"]
    return await notices.schedule(harness.bot).tick(clock())


async def quiet_period(harness: Harness, clock: FakeClock) -> None:
    """Record what changed, then let the folder be quiet for the whole period."""
    await tick(harness, clock)
    clock.advance(QUIET)
    await tick(harness, clock)


def move_everything(source: Path, target: Path) -> None:
    """Move what `source` holds into `target`, as an unmounted disk or its return does."""
    target.mkdir(exist_ok=True)
    for entry in list(source.iterdir()):
        entry.rename(target / entry.name)


def delete_everything(folder: Path) -> None:
    """Delete what `folder` holds, keeping the folder itself."""
    for entry in list(folder.iterdir()):
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def scopes_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scopes.toml"
    path.write_text(text, encoding="utf-8")
    return path


class TestSubscribing:
    async def test_a_new_file_is_told_once_after_the_quiet_period(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            reply = await command(harness, "/subscribe hr")
            assert "🔔 Готово" in reply and "<b>hr/</b>" in reply and "5 минут" in reply
            drop(sandbox_dir, f"hr/{POLICY}")
            await tick(harness, clock)
            clock.advance(QUIET - 1)
            await tick(harness, clock)
            assert digests_to(harness, USER_ID) == []
            clock.advance(1)
            await tick(harness, clock)
            assert digests_to(harness, USER_ID) == [f"🔔 Новое в <b>hr/</b>: {POLICY}"]
            clock.advance(QUIET)
            await tick(harness, clock)
            assert len(digests_to(harness, USER_ID)) == 1

    async def test_a_folder_that_keeps_changing_is_told_after_the_longest_wait(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe", user_id=ADMIN_ID)
            for n in range(8):
                drop(sandbox_dir, f"hr/черновик {n}.txt")
                await tick(harness, clock)
                assert digests_to(harness, ADMIN_ID) == []
                clock.advance(QUIET - 50)
            drop(sandbox_dir, "hr/черновик 8.txt")
            await tick(harness, clock)
            (sent,) = digests_to(harness, ADMIN_ID)
            assert sent.startswith("🔔 Изменения в документах:\n\nНовое (9):\n")
            assert all(f"• hr/черновик {n}.txt" in sent for n in range(9))

    async def test_the_list_the_language_and_unsubscribing(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe hr")
            await command(harness, "/subscribe it")
            assert "уже подписан на <b>hr/</b>" in await command(harness, "/subscribe hr/")
            (sandbox_dir / "hr" / "2025").mkdir()
            assert "<b>hr/2025/</b> уже входит в подписку на <b>hr/</b>" in await command(
                harness, "/subscribe hr/2025"
            )
            listed = await command(harness, "/subscriptions")
            assert listed == "🔔 Подписки этого чата:\n• <b>hr/</b>\n• <b>it/</b>"
            everything = await command(harness, "/subscribe")
            assert "заменила подписки на <b>hr/</b>, <b>it/</b>" in everything
            assert "Папки <b>нет/такой</b> нет" in await command(harness, "/subscribe нет/такой")
            assert "это файл, а не папка" in await command(harness, "/subscribe README.md")
            assert await command(harness, "/unsubscribe") == "🔕 Подписки этого чата отменены: 1."
            assert (await command(harness, "/subscriptions")).startswith("🔕 Подписок нет.")
            await harness.feed(
                harness.updates.command("/subscribe hr", user_id=ADMIN_ID, language_code="en")
            )
            assert "/unsubscribe ends them" in texts_to(harness, ADMIN_ID)[-1]
            drop(sandbox_dir, f"hr/{POLICY}")
            await quiet_period(harness, clock)
            assert digests_to(harness, USER_ID) == []
            assert digests_to(harness, ADMIN_ID) == [f"🔔 New in <b>hr/</b>: {POLICY}"]

    async def test_unsubscribe_stops_the_notices(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe hr")
            drop(sandbox_dir, "hr/первый.txt")
            await tick(harness, clock)
            assert (
                await command(harness, "/unsubscribe hr") == "🔕 Подписка на <b>hr/</b> отменена."
            )
            assert "Подписки на <b>hr</b> нет" in await command(harness, "/unsubscribe hr")
            drop(sandbox_dir, "hr/второй.txt")
            await quiet_period(harness, clock)
            assert digests_to(harness, USER_ID) == []


class TestWhatIsTold:
    async def test_admins_removal_and_move_are_told(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe документы")
            await _confirm(harness, "/rm документы/рецепт_шарлотки.txt")
            await _confirm(harness, "/mv документы/договор_аренды.md документы/архив/")
            drop(sandbox_dir, "документы/приказ.txt")
            (sandbox_dir / "документы" / "приказ.txt").unlink()
            await quiet_period(harness, clock)
            (sent,) = digests_to(harness, USER_ID)
            assert sent == (
                "🔔 Изменения в <b>документы/</b>:\n"
                "\nПеремещено (1):\n• договор_аренды.md → архив/договор_аренды.md\n"
                "\nУдалено (1):\n• рецепт_шарлотки.txt"
            )

    async def test_the_folders_last_files_deleted_are_told(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe", user_id=ADMIN_ID)
            await tick(harness, clock)
            everything = sorted(harness.services.toolbox.visible_files(None))
            assert len(everything) > 1
            delete_everything(sandbox_dir)
            await quiet_period(harness, clock)
            (sent,) = digests_to(harness, ADMIN_ID)
            assert f"Удалено ({len(everything)})" in sent
            assert all(f"• {path}" in sent for path in everything), sent

    async def test_an_edited_file_and_a_restored_one_are_changed(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe hr", user_id=ADMIN_ID)
            drop(sandbox_dir, "hr/отпуск.md", "# Правила отпусков\n\nТеперь 31 день.\n")
            await quiet_period(harness, clock)
            assert digests_to(harness, ADMIN_ID) == ["🔔 Изменено в <b>hr/</b>: отпуск.md"]

    async def test_a_file_outside_the_subscribers_scope_is_never_named(
        self, make_dispatcher: Any, sandbox_dir: Path, tmp_path: Path
    ) -> None:
        clock = FakeClock()
        scopes = scopes_file(tmp_path, f'{USER_ID} = ["hr"]\n')
        async with make_dispatcher(tuning=tuning(clock), scopes_file=scopes) as harness:
            assert "Папки <b>финансы</b> нет" in await command(harness, "/subscribe финансы")
            assert "все доступные документы" in await command(harness, "/subscribe")
            drop(sandbox_dir, f"hr/{POLICY}")
            drop(sandbox_dir, "финансы/зарплаты 2025.txt")
            await _confirm(harness, "/mv финансы/бюджет_2024.csv hr/")
            await _confirm(harness, "/mv hr/vacation_policy.md финансы/")
            await quiet_period(harness, clock)
            (sent,) = digests_to(harness, USER_ID)
            assert "зарплаты" not in sent and "финансы" not in sent
            assert sent == (
                "🔔 Изменения в документах:\n"
                f"\nНовое (2):\n• hr/{POLICY}\n• hr/бюджет_2024.csv\n"
                "\nУдалено (1):\n• hr/vacation_policy.md"
            )


class TestGroups:
    async def test_an_admin_subscribes_a_group_and_a_member_cannot(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            refused = await command(harness, "/subscribe hr", chat_id=GROUP_ID)
            assert "только администратор" in refused
            await command(harness, "/unsubscribe", chat_id=GROUP_ID)
            assert "🔕 Подписок нет." in await command(harness, "/subscriptions", chat_id=GROUP_ID)
            await command(harness, "/subscribe hr", user_id=ADMIN_ID, chat_id=GROUP_ID)
            assert "только администратор" in await command(
                harness, "/unsubscribe", chat_id=GROUP_ID
            )
            drop(sandbox_dir, f"hr/{POLICY}")
            await quiet_period(harness, clock)
            assert digests_to(harness, GROUP_ID) == [f"🔔 Новое в <b>hr/</b>: {POLICY}"]
            assert digests_to(harness, ADMIN_ID) == []

    async def test_a_team_group_hears_of_an_admins_upload(self, make_dispatcher: Any) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe hr", user_id=ADMIN_ID, chat_id=GROUP_ID)
            content = "Отпуск — 28 дней.".encode()
            harness.session.add_file("documents/policy", content)
            await harness.feed(
                harness.updates.document(
                    POLICY,
                    file_id="policy",
                    file_size=len(content),
                    caption="hr",
                    user_id=ADMIN_ID,
                )
            )
            schedule = harness.dp["change_notices"].schedule(harness.bot)
            await schedule.tick(clock())
            clock.advance(QUIET)
            await schedule.tick(clock())
            assert digests_to(harness, GROUP_ID) == [f"🔔 Новое в <b>hr/</b>: {POLICY}"]

    async def test_the_groups_scope_when_sending_decides(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe", user_id=ADMIN_ID, chat_id=GROUP_ID)
            drop(sandbox_dir, f"hr/{POLICY}")
            drop(sandbox_dir, "финансы/зарплаты 2025.txt")
            await tick(harness, clock)
            await command(harness, "/scope hr", user_id=ADMIN_ID, chat_id=GROUP_ID)
            clock.advance(QUIET)
            await tick(harness, clock)
            assert digests_to(harness, GROUP_ID) == [f"🔔 Новое в документах: hr/{POLICY}"]

    async def test_a_forum_topic_hears_in_the_topic_within_its_own_scope(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe", user_id=ADMIN_ID, chat_id=GROUP_ID, topic=7)
            await command(harness, "/scope hr", user_id=ADMIN_ID, chat_id=GROUP_ID, topic=7)
            listed = await command(harness, "/subscriptions", chat_id=GROUP_ID, topic=7)
            assert "все доступные документы" in listed
            assert "Подписок нет" in await command(harness, "/subscriptions", chat_id=GROUP_ID)
            drop(sandbox_dir, f"hr/{POLICY}")
            drop(sandbox_dir, "финансы/зарплаты 2025.txt")
            await quiet_period(harness, clock)
            (sent,) = [m for m in sent_to(harness, GROUP_ID) if _DIGEST.match(m.text)]
            assert sent.text == f"🔔 Новое в документах: hr/{POLICY}"
            assert sent.message_thread_id == 7


class TestAScopedAdminsGroup:
    async def test_a_group_hears_only_of_what_its_subscriber_may_see(
        self, make_dispatcher: Any, sandbox_dir: Path, tmp_path: Path
    ) -> None:
        clock = FakeClock()
        scopes = scopes_file(tmp_path, f'{ADMIN_ID} = ["документы"]\n')
        async with make_dispatcher(tuning=tuning(clock), scopes_file=scopes) as harness:
            await command(harness, "/scope *", user_id=ADMIN_ID, chat_id=GROUP_ID)
            await command(harness, "/subscribe", user_id=ADMIN_ID, chat_id=GROUP_ID)
            drop(sandbox_dir, f"hr/{POLICY}")
            drop(sandbox_dir, "документы/план.txt")
            await quiet_period(harness, clock)
            assert digests_to(harness, GROUP_ID) == ["🔔 Новое в документах: документы/план.txt"]

    async def test_the_subscribers_scope_when_sending_decides(
        self, make_dispatcher: Any, sandbox_dir: Path, tmp_path: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe", user_id=ADMIN_ID, chat_id=GROUP_ID)
        scopes = scopes_file(tmp_path, f'{ADMIN_ID} = ["документы"]\n')
        async with make_dispatcher(tuning=tuning(clock), scopes_file=scopes) as harness:
            await tick(harness, clock)
            drop(sandbox_dir, f"hr/{POLICY}")
            drop(sandbox_dir, "документы/план.txt")
            await quiet_period(harness, clock)
            assert digests_to(harness, GROUP_ID) == ["🔔 Новое в документах: документы/план.txt"]


class TestAcrossWorkersAndRestarts:
    async def test_changes_seen_before_a_restart_are_told_after_it(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe hr")
            drop(sandbox_dir, f"hr/{POLICY}")
            await tick(harness, clock)
        async with make_dispatcher(tuning=tuning(clock)) as restarted:
            clock.advance(QUIET)
            await tick(restarted, clock)
            assert digests_to(restarted, USER_ID) == [f"🔔 Новое в <b>hr/</b>: {POLICY}"]

    async def test_a_user_who_lost_access_hears_nothing(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe hr")
            drop(sandbox_dir, f"hr/{POLICY}")
            await tick(harness, clock)
        async with make_dispatcher(
            tuning=tuning(clock), allowed_user_ids=frozenset()
        ) as restarted:
            clock.advance(QUIET)
            await tick(restarted, clock)
            assert texts_to(restarted, USER_ID) == []

    async def test_forget_ends_a_persons_own_subscriptions(self, make_dispatcher: Any) -> None:
        async with make_dispatcher() as harness:
            await command(harness, "/subscribe hr")
            await command(harness, "/subscribe", user_id=ADMIN_ID, chat_id=GROUP_ID)
            await _confirm(harness, "/forget", user_id=USER_ID)
            store: NoticeStore = harness.dp["notice_store"]
            assert [s.chat_id for s in await store.subscriptions()] == [GROUP_ID]

    async def test_two_workers_on_one_database_send_it_once(
        self, make_dispatcher: Any, sandbox_dir: Path, postgres_url: str
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock), database_url=postgres_url) as harness:
            await command(harness, "/subscribe hr")
            toolbox = harness.services.toolbox
            other = await PostgresDatabase.open(postgres_url)
            try:
                source = FolderChanges(lambda: toolbox.visible_files(None), lambda: True)
                second = ChangeNotices(
                    source,
                    PostgresNotices(other, clock=clock),
                    Audience(harness.dp["access"], harness.dp["scopes"], toolbox.sandbox),
                    quiet_s=QUIET,
                    clock=clock,
                )
                first: ChangeNotices = harness.dp["change_notices"]
                drop(sandbox_dir, f"hr/{POLICY}")
                await toolbox.wait_synced()
                workers = (first.schedule(harness.bot), second.schedule(harness.bot))
                await asyncio.gather(*(w.tick(clock()) for w in workers))
                clock.advance(QUIET)
                sent = await asyncio.gather(*(w.tick(clock()) for w in workers))
            finally:
                await other.close()
            assert sum(sent) <= 1  # the bot's own loop may have been the one
            assert digests_to(harness, USER_ID) == [f"🔔 Новое в <b>hr/</b>: {POLICY}"]
            store: NoticeStore = harness.dp["notice_store"]
            assert [c.change.path for c in await store.since(0)] == [f"hr/{POLICY}"]


class TestWhileNoBotRan:
    async def test_a_file_copied_in_while_stopped_is_told_once_after_start(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe hr")
        drop(sandbox_dir, f"hr/{POLICY}")
        async with make_dispatcher(tuning=tuning(clock)) as restarted:
            await tick(restarted, clock)
            assert digests_to(restarted, USER_ID) == []
            clock.advance(QUIET)
            await tick(restarted, clock)
            assert digests_to(restarted, USER_ID) == [f"🔔 Новое в <b>hr/</b>: {POLICY}"]
            clock.advance(QUIET)
            await tick(restarted, clock)
            assert len(digests_to(restarted, USER_ID)) == 1
        async with make_dispatcher(tuning=tuning(clock)) as unchanged:
            await quiet_period(unchanged, clock)
            assert digests_to(unchanged, USER_ID) == []

    async def test_edits_moves_and_deletions_while_stopped_are_told(
        self, make_dispatcher: Any, sandbox_dir: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe", user_id=ADMIN_ID)
        drop(sandbox_dir, "hr/отпуск.md", "# Правила отпусков\n\nТеперь 31 день.\n")
        (sandbox_dir / "документы" / "рецепт_шарлотки.txt").unlink()
        (sandbox_dir / "документы" / "архив").mkdir()
        (sandbox_dir / "документы" / "договор_аренды.md").rename(
            sandbox_dir / "документы" / "архив" / "договор_аренды.md"
        )
        async with make_dispatcher(tuning=tuning(clock)) as restarted:
            await quiet_period(restarted, clock)
            assert digests_to(restarted, ADMIN_ID) == [
                "🔔 Изменения в документах:\n"
                "\nПеремещено (1):\n• документы/договор_аренды.md → "
                "документы/архив/договор_аренды.md\n"
                "\nИзменено (1):\n• hr/отпуск.md\n"
                "\nУдалено (1):\n• документы/рецепт_шарлотки.txt"
            ]

    async def test_a_first_start_tells_nothing(
        self, make_dispatcher: Any, postgres_url: str
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock), database_url=postgres_url) as harness:
            await command(harness, "/subscribe", user_id=ADMIN_ID)
            await quiet_period(harness, clock)
            assert digests_to(harness, ADMIN_ID) == []
            store: NoticeStore = harness.dp["notice_store"]
            assert await store.since(0) == []

    async def test_an_index_rebuilt_from_nothing_tells_only_what_changed(
        self, make_dispatcher: Any, sandbox_dir: Path, tmp_path: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe hr")
        for index in (tmp_path / "data").glob(f"{INDEX_FILE.split('.')[0]}*"):
            shutil.rmtree(index) if index.is_dir() else index.unlink()
        drop(sandbox_dir, f"hr/{POLICY}")
        async with make_dispatcher(tuning=tuning(clock)) as rebuilt:
            await quiet_period(rebuilt, clock)
            assert digests_to(rebuilt, USER_ID) == [f"🔔 Новое в <b>hr/</b>: {POLICY}"]

    async def test_a_folder_empty_at_start_is_not_everything_removed(
        self, make_dispatcher: Any, sandbox_dir: Path, tmp_path: Path
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock)) as harness:
            await command(harness, "/subscribe hr")
        unmounted = tmp_path / "unmounted"
        move_everything(sandbox_dir, unmounted)
        async with make_dispatcher(tuning=tuning(clock)) as restarted:
            await quiet_period(restarted, clock)
            assert digests_to(restarted, USER_ID) == []
            move_everything(unmounted, sandbox_dir)
            drop(sandbox_dir, f"hr/{POLICY}")
            await quiet_period(restarted, clock)
            assert digests_to(restarted, USER_ID) == [f"🔔 Новое в <b>hr/</b>: {POLICY}"]

    async def test_two_workers_starting_after_a_change_tell_it_once(
        self, make_dispatcher: Any, sandbox_dir: Path, tmp_path: Path, postgres_url: str
    ) -> None:
        clock = FakeClock()
        async with make_dispatcher(tuning=tuning(clock), database_url=postgres_url) as harness:
            await command(harness, "/subscribe hr")
        drop(sandbox_dir, f"hr/{POLICY}")
        other_machine = Toolbox(
            ToolSettings(sandbox_dir=sandbox_dir, data_dir=tmp_path / "other machine")
        )
        await other_machine.start()
        other = await PostgresDatabase.open(postgres_url)
        try:
            await asyncio.wait_for(other_machine.wait_ready(), 30)
            async with make_dispatcher(
                tuning=tuning(clock), database_url=postgres_url
            ) as restarted:
                second = ChangeNotices(
                    FolderChanges(
                        lambda: other_machine.visible_files(None),
                        other_machine.indexer.scanned.is_set,
                    ),
                    PostgresNotices(other, clock=clock),
                    Audience(
                        restarted.dp["access"], restarted.dp["scopes"], other_machine.sandbox
                    ),
                    quiet_s=QUIET,
                    clock=clock,
                )
                first: ChangeNotices = restarted.dp["change_notices"]
                workers = (first.schedule(restarted.bot), second.schedule(restarted.bot))
                await asyncio.gather(*(w.tick(clock()) for w in workers))
                clock.advance(QUIET)
                await asyncio.gather(*(w.tick(clock()) for w in workers))
                assert digests_to(restarted, USER_ID) == [f"🔔 Новое в <b>hr/</b>: {POLICY}"]
                store: NoticeStore = restarted.dp["notice_store"]
                assert [c.change.path for c in await store.since(0)] == [f"hr/{POLICY}"]
        finally:
            await other.close()
            await other_machine.close()

"""Change notices' store on both backends: subscriptions start at the next change, a change
seen twice is kept once, a digest is claimed once, /forget deletes a person's own, and the
folder is remembered once and follows the changes recorded."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.process.data_files import DataFiles
from bot.storage import PostgresDatabase
from bot.storage.notices import Change, NoticeStore
from bot.storage.notices.postgres import PostgresNotices
from bot.storage.notices.sqlite import SqliteNotices
from tests.fakes.clock import FakeClock

GROUP = -100500
USER = 1001


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(10_000.0)


@pytest.fixture
async def sqlite_notices(tmp_path: Path, clock: FakeClock) -> AsyncIterator[NoticeStore]:
    store = SqliteNotices(tmp_path / "notices.sqlite3", clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def postgres_notices(
    postgres_database: PostgresDatabase, clock: FakeClock
) -> AsyncIterator[NoticeStore]:
    store = PostgresNotices(postgres_database, clock=clock)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def notices(backend: str, request: pytest.FixtureRequest) -> NoticeStore:
    store: NoticeStore = request.getfixturevalue(f"{backend}_notices")
    return store


def added(path: str, size: int = 10) -> Change:
    return Change(path, "added", size, 1_000)


class TestNoticeStore:
    async def test_a_subscription_hears_only_changes_after_it(self, notices: NoticeStore) -> None:
        await notices.record([added("hr/old.pdf")])
        assert await notices.subscribe(USER, "hr", user_id=USER, language="ru")
        (subscription,) = await notices.of_chat(USER)
        fresh = await notices.since(subscription.sent_through)
        assert fresh == []
        await notices.record([added("hr/new.pdf")])
        (change,) = await notices.since(subscription.sent_through)
        assert change.change == added("hr/new.pdf")
        assert change.noticed_at == 10_000.0

    async def test_subscribing_again_keeps_one_and_takes_the_new_language(
        self, notices: NoticeStore
    ) -> None:
        assert await notices.subscribe(GROUP, "", user_id=None, language="ru")
        assert not await notices.subscribe(GROUP, "", user_id=None, language="en")
        (subscription,) = await notices.subscriptions()
        assert (subscription.chat_id, subscription.folder, subscription.language) == (
            GROUP,
            "",
            "en",
        )
        assert subscription.user_id is None

    async def test_a_group_remembers_the_admin_who_subscribed_it(
        self, notices: NoticeStore
    ) -> None:
        assert await notices.subscribe(GROUP, "", user_id=None, language="ru", subscribed_by=7)
        assert not await notices.subscribe(GROUP, "", user_id=None, language="en", subscribed_by=8)
        await notices.subscribe(USER, "hr", user_id=USER, language="ru")
        by = {(s.chat_id, s.subscribed_by) for s in await notices.subscriptions()}
        assert by == {(GROUP, 7), (USER, None)}

    async def test_the_same_change_seen_twice_is_kept_once(self, notices: NoticeStore) -> None:
        assert await notices.record([added("a.txt")]) == 1
        assert await notices.record([added("a.txt")]) == 0
        assert await notices.record([Change("a.txt", "removed", 10, 1_000)]) == 1
        assert await notices.record([added("a.txt")]) == 1
        assert [c.change.kind for c in await notices.since(0)] == ["added", "removed", "added"]

    async def test_a_digest_is_claimed_once(self, notices: NoticeStore) -> None:
        await notices.subscribe(USER, "", user_id=USER, language="ru")
        await notices.record([added("a.txt")])
        (change,) = await notices.since(0)
        (read,) = await notices.of_chat(USER)
        won = await asyncio.gather(notices.claim(read, change.id), notices.claim(read, change.id))
        assert sorted(won) == [False, True]
        (subscription,) = await notices.of_chat(USER)
        assert subscription.sent_through == change.id
        assert not await notices.claim(replace(read, folder="gone"), change.id + 1)

    async def test_each_forum_topic_has_its_own(self, notices: NoticeStore) -> None:
        await notices.subscribe(GROUP, "hr", user_id=None, language="ru")
        assert await notices.subscribe(GROUP, "hr", thread_id=7, user_id=None, language="en")
        assert [s.thread_id for s in await notices.subscriptions()] == [None, 7]
        (topic,) = await notices.of_chat(GROUP, 7)
        assert (topic.folder, topic.language) == ("hr", "en")
        await notices.record([added("hr/a.txt")])
        (change,) = await notices.since(0)
        assert await notices.claim(topic, change.id)
        (general,) = await notices.of_chat(GROUP)
        assert general.sent_through == 0
        assert await notices.unsubscribe(GROUP, thread_id=7) == 1
        assert [s.thread_id for s in await notices.subscriptions()] == [None]

    async def test_unsubscribe_one_folder_or_all(self, notices: NoticeStore) -> None:
        for folder in ("hr", "it", "финансы"):
            await notices.subscribe(USER, folder, user_id=USER, language="ru")
        assert await notices.unsubscribe(USER, "it") == 1
        assert [s.folder for s in await notices.of_chat(USER)] == ["hr", "финансы"]
        assert await notices.unsubscribe(USER, "it") == 0
        assert await notices.unsubscribe(USER) == 2
        assert await notices.of_chat(USER) == []

    async def test_forget_deletes_a_persons_own_and_leaves_groups(
        self, notices: NoticeStore
    ) -> None:
        await notices.subscribe(USER, "hr", user_id=USER, language="ru")
        await notices.subscribe(GROUP, "hr", user_id=None, language="ru")
        assert await notices.forget_user(USER) == 1
        assert [s.chat_id for s in await notices.subscriptions()] == [GROUP]

    async def test_old_changes_are_deleted(self, notices: NoticeStore, clock: FakeClock) -> None:
        await notices.record([added("old.txt")])
        clock.advance(100)
        await notices.record([added("new.txt")])
        assert await notices.delete_older(clock() - 50) == 1
        assert [c.change.path for c in await notices.since(0)] == ["new.txt"]


class TestRememberedFolder:
    async def test_none_until_remembered_then_it_follows_the_recorded_changes(
        self, notices: NoticeStore
    ) -> None:
        assert await notices.remembered_folder() is None
        assert await notices.remember_folder({"a.txt": (10, 1_000), "b.txt": (5, 7)})
        await notices.record(
            [
                Change("a.txt", "changed", 12, 2_000),
                Change("b.txt", "removed", 5, 7),
                added("hr/c.txt"),
            ]
        )
        assert await notices.remembered_folder() == {
            "a.txt": (12, 2_000),
            "hr/c.txt": (10, 1_000),
        }

    async def test_a_change_kept_already_still_says_what_the_folder_holds(
        self, notices: NoticeStore
    ) -> None:
        """The log and the remembered folder can part (a folder remembered after a change was
        kept, or an older worker that kept changes without it): a change the log holds
        already is not news, but the folder it leaves is still the folder."""
        assert await notices.record([added("a.txt")]) == 1
        assert await notices.remember_folder({})
        assert await notices.record([added("a.txt"), added("b.txt")]) == 1
        assert await notices.remembered_folder() == {
            "a.txt": (10, 1_000),
            "b.txt": (10, 1_000),
        }

    async def test_many_changes_at_once(self, notices: NoticeStore) -> None:
        """A restart may bring an outage's worth of changes in one look."""
        assert await notices.remember_folder({"old.txt": (1, 1)})
        batch = [added(f"f{n}.txt") for n in range(500)] + [Change("old.txt", "removed", 1, 1)]
        assert await notices.record(batch) == 501
        assert await notices.record(batch) == 0
        remembered = await notices.remembered_folder()
        assert remembered is not None
        assert len(remembered) == 500
        assert "old.txt" not in remembered
        assert len(await notices.since(0)) == 501

    async def test_an_empty_folder_is_remembered_as_empty(self, notices: NoticeStore) -> None:
        assert await notices.remember_folder({})
        assert await notices.remembered_folder() == {}

    async def test_workers_starting_together_remember_it_once(self, notices: NoticeStore) -> None:
        won = await asyncio.gather(
            notices.remember_folder({"a.txt": (1, 1)}),
            notices.remember_folder({"b.txt": (2, 2)}),
        )
        assert sorted(won) == [False, True]
        kept = {"a.txt": (1, 1)} if won[0] else {"b.txt": (2, 2)}
        assert await notices.remembered_folder() == kept
        assert not await notices.remember_folder({})
        assert await notices.remembered_folder() == kept


def test_the_file_is_among_the_bot_databases(tmp_path: Path) -> None:
    files = DataFiles(tmp_path)
    assert files.notices in files.bot_databases()

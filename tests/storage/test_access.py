"""The access store on both backends, and two workers sharing one: a code pairs exactly once.

A "worker" here is an `AccessPolicy` on a store of its own: on SQLite its own connection to the
same file, on PostgreSQL its own `PostgresDatabase` (pool, session and owner) on one database.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from bot.access import AccessPolicy
from bot.access import command as pair_command
from bot.entrance.loading import load_settings
from bot.storage import PostgresDatabase
from bot.storage.access import (
    LOCKOUT_S,
    REQUEST_PERIOD_S,
    AccessStore,
    Grant,
    Person,
    RequestMessage,
    codes,
)
from bot.storage.access.postgres import PostgresAccessStore, issue_code_in
from bot.storage.access.sqlite import SqliteAccessStore
from tests.fakes.clock import FakeClock

OWNER = Person(7, "Owner", "owner")
GUEST = Person(8, "Guest", None)
OTHER = Person(9, "Other", "other")

Worker = Callable[[], Awaitable[AccessStore]]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def sqlite_workers(tmp_path: Path) -> AsyncIterator[Worker]:
    async def worker() -> AccessStore:
        return SqliteAccessStore(tmp_path / "access.sqlite3")

    yield worker


@pytest.fixture
async def postgres_workers(postgres_url: str) -> AsyncIterator[Worker]:
    opened: list[PostgresDatabase] = []

    async def worker() -> AccessStore:
        database = await PostgresDatabase.open(postgres_url)
        opened.append(database)
        return PostgresAccessStore(database)

    try:
        yield worker
    finally:
        for database in opened:
            await database.close()


@pytest.fixture
def workers(backend: str, request: pytest.FixtureRequest) -> Worker:
    made: Worker = request.getfixturevalue(f"{backend}_workers")
    return made


@pytest.fixture
async def policy(workers: Worker, tmp_path: Path, clock: FakeClock) -> AsyncIterator[AccessPolicy]:
    opened = await _policy(await workers(), tmp_path, clock)
    try:
        yield opened
    finally:
        await opened.close()


async def _policy(store: AccessStore, tmp_path: Path, clock: FakeClock) -> AccessPolicy:
    policy = AccessPolicy(load_settings(data_dir=tmp_path / "data"), store, clock=clock)
    await policy.load()
    return policy


def _raw(code: str) -> str:
    raw = codes.normalize(code)
    assert raw is not None
    return raw


class TestPairing:
    async def test_the_right_code_makes_an_admin_once(self, policy: AccessPolicy) -> None:
        code = await policy.issue_code()
        assert (await policy.pair(OWNER, _raw(code))).result == "paired"
        assert policy.is_admin(OWNER.user_id)
        assert (await policy.pair(GUEST, _raw(code))).result == "wrong"
        assert not policy.may_use(GUEST.user_id)

    async def test_a_new_code_replaces_the_old_one(self, policy: AccessPolicy) -> None:
        first = await policy.issue_code()
        second = await policy.issue_code()
        assert (await policy.pair(OWNER, _raw(first))).result == "wrong"
        assert (await policy.pair(OWNER, _raw(second))).result == "paired"

    async def test_an_expired_code_is_refused(
        self, policy: AccessPolicy, clock: FakeClock
    ) -> None:
        code = await policy.issue_code()
        clock.advance(codes.LIFETIME_S + 1)
        assert (await policy.pair(OWNER, _raw(code))).result == "expired"
        assert not policy.has_admin()

    async def test_five_wrong_codes_lock_out_for_an_hour(
        self, policy: AccessPolicy, clock: FakeClock
    ) -> None:
        left = [(await policy.pair(GUEST, "ABCD2345")).attempts_left for _ in range(4)]
        assert left == [4, 3, 2, 1]
        locked = await policy.pair(GUEST, "ABCD2345")
        assert (locked.result, locked.retry_after_s) == ("locked", LOCKOUT_S)
        code = await policy.issue_code()
        assert (await policy.pair(GUEST, _raw(code))).result == "locked"
        assert (await policy.pair(OWNER, "ABCD2345")).result == "wrong", "others are not locked"
        clock.advance(LOCKOUT_S)
        assert (await policy.pair(GUEST, _raw(await policy.issue_code()))).result == "paired"


class TestGrantsAndRequests:
    async def test_grants_and_languages_outlive_the_worker(
        self, workers: Worker, tmp_path: Path, clock: FakeClock
    ) -> None:
        first = await _policy(await workers(), tmp_path, clock)
        await first.pair(OWNER, _raw(await first.issue_code()))
        await first.decide(GUEST.user_id, allow=True, by=OWNER, via="command")
        await first.remember_language(OWNER.user_id, "en")
        await first.close()
        again = await _policy(await workers(), tmp_path, clock)
        try:
            assert again.is_admin(OWNER.user_id)
            assert again.language(OWNER.user_id) == "en"
            grant = again.granted(GUEST.user_id)
            assert grant is not None and grant.granted_by == Person(OWNER.user_id, "Owner")
            assert (grant.role, grant.via, grant.granted_at) == ("user", "command", clock.now)
            assert (await again.deny(GUEST.user_id))[0] == "removed"
            assert (await again.deny(GUEST.user_id))[0] == "not_granted"
        finally:
            await again.close()

    async def test_letting_in_an_admin_keeps_them_admin(self, policy: AccessPolicy) -> None:
        await policy.pair(OWNER, _raw(await policy.issue_code()))
        await policy.decide(OWNER.user_id, allow=True, by=GUEST, via="command")
        assert policy.is_admin(OWNER.user_id)

    async def test_one_request_per_period_and_the_first_decision_wins(
        self, policy: AccessPolicy, clock: FakeClock
    ) -> None:
        assert await policy.open_request(GUEST, "ru")
        assert not await policy.open_request(GUEST, "ru")
        await policy.note_request_message(GUEST.user_id, RequestMessage(7, 70, "en"))
        await policy.note_request_message(GUEST.user_id, RequestMessage(3, 30, "ru"))
        settled = await policy.decide(GUEST.user_id, allow=True, by=OWNER, via="request")
        assert settled.decided_now and settled.grant is not None
        assert settled.messages == [RequestMessage(3, 30, "ru"), RequestMessage(7, 70, "en")]
        assert settled.request is not None and settled.request.person == GUEST
        late = await policy.decide(GUEST.user_id, allow=False, by=OTHER, via="request")
        assert not late.decided_now
        assert late.request is not None and late.request.decided_by_name == "Owner"
        clock.advance(REQUEST_PERIOD_S)
        assert await policy.open_request(GUEST, "ru")
        reopened = await policy.decide(GUEST.user_id, allow=False, by=OTHER, via="request")
        assert reopened.decided_now and reopened.messages == []

    async def test_the_waiting_requests_are_the_undecided_ones_newest_first(
        self, policy: AccessPolicy, clock: FakeClock
    ) -> None:
        assert await policy.pending_requests() == []
        await policy.open_request(GUEST, "en")
        clock.advance(60)
        await policy.open_request(OTHER, "ru")
        clock.advance(60)
        stale = Person(10, "Stale", None)
        await policy.open_request(stale, "ru")
        waiting = await policy.pending_requests()
        assert [(r.person, r.lang) for r in waiting] == [
            (stale, "ru"),
            (OTHER, "ru"),
            (GUEST, "en"),
        ]
        assert waiting[1].requested_at == clock.now - 60
        assert all(r.decision is None for r in waiting)
        await policy.decide(OTHER.user_id, allow=False, by=OWNER, via="request")
        await policy.decide(GUEST.user_id, allow=True, by=OWNER, via="request")
        assert [r.person for r in await policy.pending_requests()] == [stale]
        clock.advance(REQUEST_PERIOD_S - 120)
        assert [r.person for r in await policy.pending_requests()] == [stale]
        clock.advance(120)
        assert await policy.pending_requests() == [], "past the period they may ask again"
        assert await policy.open_request(stale, "en")
        assert [r.lang for r in await policy.pending_requests()] == ["en"]

    async def test_withdrawn_and_forgotten_requests_are_gone(
        self, workers: Worker, clock: FakeClock
    ) -> None:
        store = await workers()
        try:
            await store.open_request(GUEST, "en", clock())
            await store.withdraw_request(GUEST.user_id)
            assert await store.open_request(GUEST, "en", clock()), "it may be made again"
            await store.note_request_message(GUEST.user_id, RequestMessage(7, 70, "en"))
            await store.set_language(GUEST.user_id, "en")
            await store.set_language(OWNER.user_id, "ru")
            await store.forget(GUEST.user_id)
            assert (await store.load())[1] == {OWNER.user_id: "ru"}
            settled = await store.decide(
                GUEST.user_id, allow=False, by=OWNER, via="request", now=clock()
            )
            assert (settled.request, settled.decided_now, settled.messages) == (None, False, [])
        finally:
            await store.close()


class TestTwoWorkers:
    async def test_a_code_sent_to_two_workers_at_once_pairs_one_person(
        self, workers: Worker, tmp_path: Path, clock: FakeClock
    ) -> None:
        one = await _policy(await workers(), tmp_path, clock)
        two = await _policy(await workers(), tmp_path, clock)
        try:
            raw = _raw(await one.issue_code())
            outcomes = await asyncio.gather(
                *((one if n % 2 else two).pair(Person(100 + n, f"P{n}"), raw) for n in range(8))
            )
            assert sorted(o.result for o in outcomes) == ["paired"] + ["wrong"] * 7
        finally:
            await one.close()
            await two.close()

    async def test_the_first_decision_wins_across_workers(
        self, workers: Worker, tmp_path: Path, clock: FakeClock
    ) -> None:
        one = await _policy(await workers(), tmp_path, clock)
        two = await _policy(await workers(), tmp_path, clock)
        try:
            await one.open_request(GUEST, "en")
            settled = await asyncio.gather(
                one.decide(GUEST.user_id, allow=True, by=OWNER, via="request"),
                two.decide(GUEST.user_id, allow=False, by=OTHER, via="request"),
            )
            assert [s.decided_now for s in settled].count(True) == 1
        finally:
            await one.close()
            await two.close()

    async def test_two_workers_denying_the_last_two_admins_at_once_leave_one(
        self, workers: Worker, tmp_path: Path, clock: FakeClock
    ) -> None:
        """Each worker's mirror still holds both admins when both denials reach the database
        together, so only the store can keep the last one."""
        one = await _policy(await workers(), tmp_path, clock)
        await one.pair(OWNER, _raw(await one.issue_code()))
        await one.pair(OTHER, _raw(await one.issue_code()))
        two = await _policy(await workers(), tmp_path, clock)
        try:
            assert one.admin_ids() == two.admin_ids() == {OWNER.user_id, OTHER.user_id}
            results = await asyncio.gather(
                one.deny(OTHER.user_id, by=OWNER), two.deny(OWNER.user_id, by=OTHER)
            )
            assert sorted(result for result, _ in results) == ["last_admin", "removed"]
            store = await workers()
            try:
                grants, _ = await store.load()
            finally:
                await store.close()
            assert [g.role for g in grants] == ["admin"]
        finally:
            await one.close()
            await two.close()


async def test_a_grant_made_by_one_worker_reaches_the_others(
    postgres_database: PostgresDatabase, postgres_url: str, tmp_path: Path, clock: FakeClock
) -> None:
    reloaded = asyncio.Event()

    class Observed(PostgresAccessStore):
        async def load(self) -> tuple[list[Grant], dict[int, str]]:
            found = await super().load()
            reloaded.set()
            return found

    other = await PostgresDatabase.open(postgres_url)
    try:
        one = await _policy(PostgresAccessStore(postgres_database), tmp_path, clock)
        two = await _policy(Observed(other), tmp_path, clock)
        reloaded.clear()
        code = await issue_code_in(other, clock())
        await one.pair(OWNER, _raw(code))
        await asyncio.wait_for(reloaded.wait(), 10)
        assert two.is_admin(OWNER.user_id)
        reloaded.clear()
        await one.decide(GUEST.user_id, allow=True, by=OWNER, via="command")
        await asyncio.wait_for(reloaded.wait(), 10)
        assert two.may_use(GUEST.user_id)
        reloaded.clear()
        assert (await one.deny(GUEST.user_id, by=OWNER))[0] == "removed"
        await asyncio.wait_for(reloaded.wait(), 10)
        assert not two.may_use(GUEST.user_id)
        await one.close()
        await two.close()
    finally:
        await other.close()


async def test_the_pair_command_writes_its_code_to_postgres(
    postgres_database: PostgresDatabase,
    postgres_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = load_settings(data_dir=tmp_path / "data", database_url=postgres_url)
    assert await pair_command.serve(settings) == 0
    printed = capsys.readouterr().out
    code = printed.split("Pairing code: ", 1)[1].split()[0]
    outcome = await PostgresAccessStore(postgres_database).redeem(OWNER, _raw(code), time.time())
    assert outcome.result == "paired"
    assert not (tmp_path / "data").exists(), "nothing was written to DATA_DIR"

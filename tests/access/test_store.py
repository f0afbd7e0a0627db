"""The access store without Telegram: code shape, pairing, lockout, grants and requests."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.access import AccessPolicy, Person, RequestMessage
from bot.entrance.loading import load_settings
from bot.storage.access import LOCKOUT_S, REQUEST_PERIOD_S, codes
from bot.storage.access.sqlite import SqliteAccessStore, issue_code_now
from tests.fakes.clock import FakeClock

OWNER = Person(7, "Owner", "owner")
GUEST = Person(8, "Guest", None)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def policy(tmp_path: Path, clock: FakeClock) -> AsyncIterator[AccessPolicy]:
    opened = await _open(tmp_path, clock)
    try:
        yield opened
    finally:
        await opened.close()


async def _open(tmp_path: Path, clock: FakeClock, **settings: Any) -> AccessPolicy:
    policy = AccessPolicy(
        load_settings(data_dir=tmp_path / "data", **settings),
        SqliteAccessStore(tmp_path / "data" / "access.sqlite3"),
        clock=clock,
    )
    await policy.load()
    return policy


def _raw(code: str) -> str:
    raw = codes.normalize(code)
    assert raw is not None
    return raw


class TestCodeShape:
    def test_new_codes_have_the_shape_they_are_recognised_by(self) -> None:
        for _ in range(200):
            code = codes.new_code()
            assert len(code) == 9 and code[4] == "-"
            assert codes.normalize(code) == code.replace("-", "")

    @pytest.mark.parametrize("text", ["abcd-2345", "ABCD2345", " abcd 2345 ", "Abcd-2345"])
    def test_case_and_separator_do_not_matter(self, text: str) -> None:
        assert codes.normalize(text) == "ABCD2345"

    @pytest.mark.parametrize(
        "text",
        [
            "fragment",  # letters only
            "23456789",  # digits only
            "hello123",  # L and O are not in the alphabet
            "ABCD-23451",
            "ABC-2345",
            "ABCD--2345",
            "как дела",
            "",
        ],
    )
    def test_ordinary_text_is_not_a_code(self, text: str) -> None:
        assert codes.normalize(text) is None


class TestPairing:
    async def test_the_right_code_makes_an_admin_once(self, policy: AccessPolicy) -> None:
        code = await policy.issue_code()
        assert not policy.has_admin()
        paired = await policy.pair(OWNER, _raw(code))
        assert paired.result == "paired"
        assert policy.is_admin(OWNER.user_id)
        assert policy.may_use(OWNER.user_id)
        again = await policy.pair(GUEST, _raw(code))
        assert again.result == "wrong"
        assert not policy.may_use(GUEST.user_id)

    async def test_a_new_code_replaces_the_old_one(
        self, policy: AccessPolicy, tmp_path: Path, clock: FakeClock
    ) -> None:
        first = await policy.issue_code()
        second = issue_code_now(tmp_path / "data" / "access.sqlite3", clock)
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
        assert locked.result == "locked"
        assert locked.retry_after_s == LOCKOUT_S
        code = await policy.issue_code()
        assert (await policy.pair(GUEST, _raw(code))).result == "locked"
        assert (await policy.pair(OWNER, "ABCD2345")).result == "wrong", "others are not locked"
        clock.advance(LOCKOUT_S)
        code = await policy.issue_code()
        assert (await policy.pair(GUEST, _raw(code))).result == "paired"

    async def test_only_the_hash_is_stored(self, policy: AccessPolicy, tmp_path: Path) -> None:
        code = await policy.issue_code()
        data = (tmp_path / "data" / "access.sqlite3").read_bytes()
        assert _raw(code).encode() not in data
        assert code.encode() not in data


class TestGrants:
    async def test_env_lists_win(self, tmp_path: Path, clock: FakeClock) -> None:
        policy = await _open(tmp_path, clock, admin_ids="1", allowed_user_ids="2")
        try:
            assert await policy.deny(1) == ("env_admin", None)
            assert policy.is_admin(1)
            result, _ = await policy.deny(2)
            assert result == "env_user"
            assert policy.may_use(2)
        finally:
            await policy.close()

    async def test_grants_survive_a_restart(self, tmp_path: Path, clock: FakeClock) -> None:
        policy = await _open(tmp_path, clock)
        try:
            await policy.pair(OWNER, _raw(await policy.issue_code()))
            await policy.decide(GUEST.user_id, allow=True, by=OWNER, via="command")
        finally:
            await policy.close()
        reopened = await _open(tmp_path, clock)
        try:
            assert reopened.is_admin(OWNER.user_id)
            assert reopened.may_use(GUEST.user_id)
            assert not reopened.is_admin(GUEST.user_id)
            grant = reopened.granted(GUEST.user_id)
            assert grant is not None and grant.granted_by == Person(OWNER.user_id, "Owner")
            assert grant.granted_at == clock.now
            assert (await reopened.deny(GUEST.user_id))[0] == "removed"
            assert (await reopened.deny(GUEST.user_id))[0] == "not_granted"
        finally:
            await reopened.close()

    async def test_letting_in_an_admin_keeps_them_admin(self, policy: AccessPolicy) -> None:
        await policy.pair(OWNER, _raw(await policy.issue_code()))
        await policy.decide(OWNER.user_id, allow=True, by=GUEST, via="command")
        assert policy.is_admin(OWNER.user_id)


class TestRequests:
    async def test_one_request_per_period_and_the_first_decision_wins(
        self, policy: AccessPolicy, clock: FakeClock
    ) -> None:
        assert await policy.open_request(GUEST, "ru")
        assert not await policy.open_request(GUEST, "ru")
        await policy.note_request_message(GUEST.user_id, RequestMessage(7, 70, "en"))
        settled = await policy.decide(GUEST.user_id, allow=True, by=OWNER, via="request")
        assert settled.decided_now and settled.grant is not None
        assert settled.messages == [RequestMessage(7, 70, "en")]
        assert settled.request is not None and settled.request.person == GUEST
        late = await policy.decide(GUEST.user_id, allow=False, by=Person(9, "Late"), via="request")
        assert not late.decided_now
        assert late.request is not None and late.request.decided_by_name == "Owner"
        assert policy.may_use(GUEST.user_id)
        clock.advance(REQUEST_PERIOD_S)
        assert await policy.open_request(GUEST, "ru")

    async def test_an_ignored_request_lets_nobody_in(self, policy: AccessPolicy) -> None:
        await policy.open_request(GUEST, "en")
        settled = await policy.decide(GUEST.user_id, allow=False, by=OWNER, via="request")
        assert settled.decided_now and settled.grant is None
        assert not policy.may_use(GUEST.user_id)
        late = await policy.decide(GUEST.user_id, allow=True, by=OWNER, via="request")
        assert late.grant is None, "a tap on a settled request changes nothing"

    async def test_a_closed_store_refuses_work(self, policy: AccessPolicy) -> None:
        await policy.close()
        with pytest.raises(sqlite3.ProgrammingError):
            await policy.issue_code()


class TestDenying:
    async def test_nobody_denies_themselves_or_the_last_admin(self, policy: AccessPolicy) -> None:
        await policy.pair(OWNER, _raw(await policy.issue_code()))
        assert await policy.deny(OWNER.user_id, by=OWNER) == ("self", None)
        assert await policy.deny(OWNER.user_id) == ("last_admin", None)
        assert policy.is_admin(OWNER.user_id)

    async def test_two_admins_denying_each_other_at_once_leave_one(
        self, policy: AccessPolicy
    ) -> None:
        await policy.pair(OWNER, _raw(await policy.issue_code()))
        await policy.pair(GUEST, _raw(await policy.issue_code()))
        results = await asyncio.gather(
            policy.deny(GUEST.user_id, by=OWNER), policy.deny(OWNER.user_id, by=GUEST)
        )
        assert sorted(result for result, _ in results) == ["last_admin", "removed"]
        assert len(policy.admin_ids()) == 1

"""Exactly-once webhook updates: one claim wins, an expired one can be taken, a finished one
never again; the same on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.storage import PostgresDatabase, PostgresUpdateClaims, SqliteUpdateClaims, UpdateClaims
from tests.storage.lease_support import leased, tries_until_taken

LONG = 600.0
EXPIRED = 0.0  # a lease that has run out the moment it is given
SHORT = 1.5  # seconds, long enough to be seen held; as minutes it would hold for 90 s


class TestClaims:
    async def test_one_owner_of_many_racing_wins(self, claims: UpdateClaims) -> None:
        won = await asyncio.gather(
            *(claims.claim(7, owner=f"w{i}", lease_s=LONG) for i in range(8))
        )
        assert won.count(True) == 1

    async def test_a_duplicate_to_the_same_owner_is_refused(self, claims: UpdateClaims) -> None:
        assert await claims.claim(1, owner="a", lease_s=LONG)
        assert not await claims.claim(1, owner="a", lease_s=LONG)

    async def test_an_expired_claim_is_taken_over(self, claims: UpdateClaims) -> None:
        lease = await leased(lambda: claims.claim(1, owner="dead", lease_s=SHORT), SHORT)
        early = await tries_until_taken(
            lambda: claims.claim(1, owner="alive", lease_s=LONG), lease
        )
        assert early >= 1, "a try while the lease lasted was refused"
        assert not await claims.claim(1, owner="third", lease_s=LONG)

    async def test_renewal_keeps_the_claim(self, claims: UpdateClaims) -> None:
        assert await claims.claim(1, owner="a", lease_s=EXPIRED)
        lease = await leased(lambda: claims.renew(1, owner="a", lease_s=SHORT), SHORT)
        early = await tries_until_taken(lambda: claims.claim(1, owner="b", lease_s=LONG), lease)
        assert early >= 1, "a try while the renewed lease lasted was refused"

    async def test_renewal_by_a_loser_changes_nothing(self, claims: UpdateClaims) -> None:
        assert await claims.claim(1, owner="a", lease_s=EXPIRED)
        await claims.renew(1, owner="b", lease_s=LONG)
        assert await claims.claim(1, owner="c", lease_s=LONG)

    async def test_a_finished_update_is_never_claimed_again(self, claims: UpdateClaims) -> None:
        assert await claims.claim(1, owner="a", lease_s=EXPIRED)
        await claims.finish(1)
        assert not await claims.claim(1, owner="b", lease_s=LONG)
        await claims.renew(1, owner="a", lease_s=LONG)
        assert not await claims.claim(1, owner="a", lease_s=LONG)

    async def test_finishing_an_unclaimed_update_marks_it(self, claims: UpdateClaims) -> None:
        await claims.finish(5)
        assert not await claims.claim(5, owner="a", lease_s=LONG)

    async def test_pruning_drops_old_finished_claims_only(self, claims: UpdateClaims) -> None:
        for update in (1, 2):
            assert await claims.claim(update, owner="a", lease_s=LONG)
        await claims.finish(1)
        assert await claims.forget_older(3600) == 0
        assert await claims.forget_older(0) == 1
        assert await claims.claim(1, owner="b", lease_s=LONG)  # forgotten: new to the store
        assert not await claims.claim(2, owner="b", lease_s=LONG)  # running: kept


class TestClaimsAcrossProcesses:
    """Two workers each with their own connection to the same store."""

    async def test_sqlite_two_connections_one_winner(self, tmp_path: Path) -> None:
        path = tmp_path / "update_claims.sqlite3"
        first, second = SqliteUpdateClaims.open(path), SqliteUpdateClaims.open(path)
        a, b = await asyncio.gather(first, second)
        try:
            results = await asyncio.gather(
                *(
                    store.claim(update, owner=name, lease_s=LONG)
                    for update in range(30)
                    for store, name in ((a, "a"), (b, "b"))
                )
            )
            assert results.count(True) == 30
        finally:
            await a.close()
            await b.close()

    async def test_postgres_two_pools_one_winner(
        self, postgres_url: str, postgres_database: PostgresDatabase
    ) -> None:
        other = await PostgresDatabase.open(postgres_url)
        try:
            a, b = PostgresUpdateClaims(postgres_database), PostgresUpdateClaims(other)
            results = await asyncio.gather(
                *(
                    store.claim(update, owner=name, lease_s=LONG)
                    for update in range(30)
                    for store, name in ((a, "a"), (b, "b"))
                )
            )
            assert results.count(True) == 30
        finally:
            await other.close()

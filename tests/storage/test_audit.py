"""The audit log and the history's deletions on both backends: what one writes, the other reads
the same way."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.agent import History
from bot.storage import PostgresDatabase
from bot.storage.audit import AuditLog, record_scope_change
from bot.storage.audit.postgres import PostgresAuditLog
from bot.storage.audit.sqlite import SqliteAuditLog
from tests.fakes.clock import FakeClock


@pytest.fixture
async def sqlite_audit(tmp_path: Path) -> AsyncIterator[AuditLog]:
    log = SqliteAuditLog(tmp_path / "audit.sqlite3", clock=FakeClock(1_000.0))
    try:
        yield log
    finally:
        await log.close()


@pytest.fixture
async def postgres_audit(postgres_database: PostgresDatabase) -> AsyncIterator[AuditLog]:
    log = PostgresAuditLog(postgres_database, clock=FakeClock(1_000.0))
    try:
        yield log
    finally:
        await log.close()


@pytest.fixture
def audit(backend: str, request: pytest.FixtureRequest) -> AuditLog:
    log: AuditLog = request.getfixturevalue(f"{backend}_audit")
    return log


class TestAuditLog:
    async def test_entries_come_back_oldest_first_and_the_last_ones_only(
        self, audit: AuditLog
    ) -> None:
        for n in range(25):
            await audit.record("upload", f"doc{n}.txt", actor_id=42, actor_name="Анна")
        await record_scope_change(audit, -100, ["hr", "общие"], actor_id=42, actor_name="Анна")
        await audit.record("grant", "7", actor_id=None, detail="admin, pairing")
        entries = await audit.recent()
        assert len(entries) == 20
        assert [e.subject for e in entries[-3:]] == ["doc24.txt", "-100", "7"]
        assert entries[-2].action == "scope" and entries[-2].detail == "hr, общие"
        assert entries[-1].actor_id is None and entries[-1].at == 1_000.0
        assert entries[0].actor_name == "Анна" and entries[0].subject == "doc7.txt"


class TestHistoryDeletions:
    async def test_forget_user_takes_private_and_own_group_conversations_only(
        self, history: History
    ) -> None:
        kept = ("chat:-100:user:912", "chat:912", "chat:912:topic:12", "chat:-100:topic:12")
        gone = ("chat:12", "chat:-100:user:12", "chat:12:topic:3", "chat:-100:topic:5:user:12")
        for key in (*gone, *kept):
            turn = await history.begin_turn(key, {"role": "user", "content": key})
            await history.finish_turn(turn, done=True)
        assert await history.forget_user(12) == len(gone)
        for key, left in (*((k, 0) for k in gone), *((k, 1) for k in kept)):
            assert len(await history.load_turns(key, 10)) == left, key

    async def test_delete_older_keeps_newer_and_running_turns(self, history: History) -> None:
        old = await history.begin_turn("chat:1", {"role": "user", "content": "старый"})
        await history.finish_turn(old, done=True)
        running = await history.begin_turn("chat:1", {"role": "user", "content": "идёт"})
        assert await history.delete_older(float("inf")) == 1
        await history.finish_turn(running, done=True)
        turns = await history.load_turns("chat:1", 10)
        assert [t[0]["content"] for t in turns] == ["идёт"]

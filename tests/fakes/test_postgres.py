"""The throwaway PostgreSQL starts beside others: parallel test workers each start their own."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import asyncpg
import pytest

from tests.fakes import postgres
from tests.fakes.ports import free_port
from tests.fakes.postgres import PostgresMissing, PostgresServer


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port another process listens on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port: int = holder.getsockname()[1]
        yield port


async def test_a_port_taken_after_it_was_picked_is_given_up_for_another(
    taken_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    picks = iter([taken_port])
    monkeypatch.setattr(postgres, "free_port", lambda: next(picks, None) or free_port())
    monkeypatch.delenv("TEST_DATABASE_URL", raising=False)
    try:
        server = PostgresServer.start()
    except PostgresMissing as exc:
        pytest.skip(str(exc))
    try:
        assert f":{taken_port}/" not in server.admin_url
        connection = await asyncpg.connect(server.admin_url)
        try:
            assert await connection.fetchval("SELECT 1") == 1
        finally:
            await connection.close()
    finally:
        server.stop()

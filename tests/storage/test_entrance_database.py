"""A database that cannot be reached stops the bot at start with exit code 1 (a restart may find
it up, unlike a refused login) and a message that names it without its password."""

from __future__ import annotations

from pathlib import Path

from tests.storage.entrance import run_bot

PASSWORD = "s3cr3t-pass"


async def test_an_unreachable_database_stops_the_start(tmp_path: Path) -> None:
    code, text = await run_bot(tmp_path, f"postgresql://bot:{PASSWORD}@127.0.0.1:1/bot", "chat")
    assert code == 1, text
    assert "postgresql://bot:***@127.0.0.1:1/bot cannot be reached" in text
    assert "check that the server runs at the host and port of DATABASE_URL" in text
    assert PASSWORD not in text

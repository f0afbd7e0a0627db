"""`check`, `pair` and `backup` as an admin runs them: whatever form the password takes in
DATABASE_URL, no process prints it, on either stream, whether the database answers or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.storage.entrance import run_bot

SECRET = "SECRETVALUE"
CLOSED = "postgresql://bot@127.0.0.1:1/bot?sslmode=disable&password=SECRETVALUE"


class TestDatabaseThatAnswers:
    async def test_check_shows_the_database_without_the_password(
        self, postgres_url: str, tmp_path: Path
    ) -> None:
        url = f"{postgres_url}?password={SECRET}"
        _, printed = await run_bot(tmp_path, url, "check")
        assert f"{postgres_url.split('://')[1]}?password=*** answers" in printed, printed
        assert SECRET not in printed

    async def test_pair_prints_a_code_and_not_the_password(
        self, postgres_url: str, tmp_path: Path
    ) -> None:
        code, printed = await run_bot(tmp_path, f"{postgres_url}?password={SECRET}", "pair")
        assert code == 0, printed
        assert "Pairing code: " in printed
        assert SECRET not in printed


class TestDatabaseThatDoesNotAnswer:
    async def test_check(self, tmp_path: Path) -> None:
        code, printed = await run_bot(tmp_path, CLOSED, "check")
        assert code != 0
        assert "127.0.0.1:1/bot?sslmode=disable&password=*** cannot be reached" in printed
        assert SECRET not in printed

    async def test_pair(self, tmp_path: Path) -> None:
        code, printed = await run_bot(tmp_path, CLOSED, "pair")
        assert code != 0
        assert "password=*** cannot be reached" in printed, printed
        assert SECRET not in printed


@pytest.mark.parametrize(
    "database_url",
    [
        CLOSED,
        "postgresql://bot:SECRET@VALUE@127.0.0.1:1/bot",
        "postgresql://bot:SECRET:VALUE@127.0.0.1:1/bot",
        "postgresql://bot@127.0.0.1:1/bot?sslpassword=SECRETVALUE",
        "postgresql://bot:SECRET/VALUE@127.0.0.1:1/bot",
        "postgresql://bot@127.0.0.1:1/bot?password=SECRET&VALUE",
    ],
)
class TestWithoutConnecting:
    async def test_check_offline(self, tmp_path: Path, database_url: str) -> None:
        _, printed = await run_bot(tmp_path, database_url, "check", "--offline")
        assert "127.0.0.1:1/bot" in printed and "not tried (--offline)" in printed, printed
        assert "SECRET" not in printed and "VALUE" not in printed

    async def test_backup(self, tmp_path: Path, database_url: str) -> None:
        (tmp_path / "data").mkdir()
        (tmp_path / "data" / "admin_menus.json").write_text("[]", encoding="utf-8")
        code, printed = await run_bot(tmp_path, database_url, "backup", str(tmp_path / "copy"))
        assert code == 0, printed
        assert "pg_dump" in printed and "127.0.0.1:1/bot" in printed
        assert "SECRET" not in printed and "VALUE" not in printed


@pytest.mark.parametrize(
    "database_url",
    [
        "postgresql://bot:SECRET/VALUE@127.0.0.1:1/bot",
        "postgresql://bot:SECRET:VALUE@127.0.0.1:1/bot",
        "postgresql://bot@127.0.0.1:1/bot?password=SECRET&VALUE",
    ],
)
class TestWhatTheDriverQuotes:
    """A driver that misreads such a URL quotes the piece it stumbled on: never a password's."""

    async def test_check(self, tmp_path: Path, database_url: str) -> None:
        code, printed = await run_bot(tmp_path, database_url, "check")
        assert code != 0
        assert "database" in printed
        assert "SECRET" not in printed and "VALUE" not in printed, printed

    async def test_pair(self, tmp_path: Path, database_url: str) -> None:
        code, printed = await run_bot(tmp_path, database_url, "pair")
        assert code != 0
        assert "SECRET" not in printed and "VALUE" not in printed, printed

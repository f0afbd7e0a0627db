"""`python -m bot check`'s database line: reachable or not, and the schema's version, with the
password never shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.console.check.database import check_database
from bot.settings.model import Settings
from bot.storage import MIGRATIONS, SCHEMA_VERSION, Migration, PostgresDatabase


def settings_for(url: str | None, tmp_path: Path) -> Settings:
    return Settings(
        database_url=SecretStr(url) if url else None,
        sandbox_dir=tmp_path,
        data_dir=tmp_path.with_name(f"{tmp_path.name}-data"),
        _env_file=None,
    )


class TestDatabaseLine:
    async def test_without_a_url_it_is_skipped(self, tmp_path: Path) -> None:
        outcome = await check_database(settings_for(None, tmp_path), offline=False)
        assert outcome.ok is None
        assert "SQLite" in outcome.text

    async def test_an_empty_database_passes_and_is_left_empty(
        self, postgres_url: str, tmp_path: Path
    ) -> None:
        outcome = await check_database(settings_for(postgres_url, tmp_path), offline=False)
        assert outcome.ok is True
        assert f"(empty; upgraded to {SCHEMA_VERSION} at start)" in outcome.text
        again = await check_database(settings_for(postgres_url, tmp_path), offline=False)
        assert again.text == outcome.text

    async def test_a_current_schema_passes(
        self, postgres_database: PostgresDatabase, postgres_url: str, tmp_path: Path
    ) -> None:
        outcome = await check_database(settings_for(postgres_url, tmp_path), offline=False)
        assert outcome.ok is True
        assert outcome.text.endswith(f"answers, schema version {SCHEMA_VERSION}")

    async def test_a_newer_schema_fails(self, postgres_url: str, tmp_path: Path) -> None:
        newer = Migration(SCHEMA_VERSION + 1, "later", ("CREATE TABLE later (id INT)",))
        database = await PostgresDatabase.open(postgres_url, migrations=(*MIGRATIONS, newer))
        await database.close()
        outcome = await check_database(settings_for(postgres_url, tmp_path), offline=False)
        assert outcome.ok is False
        assert f"schema version {SCHEMA_VERSION + 1}, newer than" in outcome.text

    @pytest.mark.parametrize("offline", [False, True])
    async def test_the_password_is_never_shown(self, tmp_path: Path, offline: bool) -> None:
        url = "postgresql://bot:s3cr3t-pass@127.0.0.1:1/bot"
        outcome = await check_database(settings_for(url, tmp_path), offline=offline)
        assert outcome.ok is (None if offline else False)
        assert "s3cr3t-pass" not in outcome.text
        assert "postgresql://bot:***@127.0.0.1:1/bot" in outcome.text

    async def test_a_url_the_driver_cannot_read_is_named_so(self, tmp_path: Path) -> None:
        """The same words as `run` and `pair` use: the URL is wrong, not the server away."""
        url = "postgresql://bot@127.0.0.1:1/bot?sslmode=bogus&password=s3cr3t-pass"
        outcome = await check_database(settings_for(url, tmp_path), offline=False)
        assert outcome.ok is False
        assert outcome.text.startswith(
            "the database URL postgresql://bot@127.0.0.1:1/bot?sslmode=bogus&password=*** "
            "cannot be used: `sslmode`"
        ), outcome.text
        assert "s3cr3t-pass" not in outcome.text

"""`backup` and `restore` with DATABASE_URL: DATA_DIR is copied as always, and both say that
the shared state is in PostgreSQL, to be copied with pg_dump, never showing the password."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.datadir import backup, restore
from bot.entrance.loading import load_settings
from bot.process.data_files import DataFiles
from bot.storage.access.sqlite import issue_code_now

URL = "postgresql://docsbot:s3cret-word@db.example:5432/docs"


async def test_backup_and_restore_point_to_pg_dump(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    issue_code_now(DataFiles(data).access)
    settings = load_settings(data_dir=data, database_url=URL)
    assert await backup.serve(settings, dest=str(tmp_path / "backup")) == 0
    printed = capsys.readouterr().out
    assert "access.sqlite3" in printed, "DATA_DIR is still backed up"
    assert "pg_dump" in printed and "db.example:5432/docs" in printed
    restored = load_settings(data_dir=tmp_path / "restored", database_url=URL)
    assert await restore.serve(restored, src=str(tmp_path / "backup")) == 0
    printed += capsys.readouterr().out
    assert "pg_restore" in printed
    assert "s3cret-word" not in printed


async def test_without_database_url_nothing_is_said_of_postgres(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    issue_code_now(DataFiles(data).access)
    assert await backup.serve(load_settings(data_dir=data), dest=str(tmp_path / "b")) == 0
    assert "PostgreSQL" not in capsys.readouterr().out

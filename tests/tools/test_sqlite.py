"""The one way an SQLite file is opened (`tools.sqlite`), as the stores, the indexes and DATA_DIR's
copies share it: read-only and snapshot opens that never write, a schema stamped once, a check
that refuses a damaged file, and a damaged file moved aside with its side files."""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tools.sqlite import connect, is_damaged, move_aside, quick_check

SCHEMA = ("CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL)",)


def _written(path: Path, *, wal: bool = False) -> None:
    db = connect(path, SCHEMA, wal=wal)
    db.execute("INSERT INTO notes (body) VALUES ('kept')")
    db.close()


def _damage(path: Path) -> None:
    """Overwrite the file's second page: the header still reads, the table does not."""
    db = connect(path, SCHEMA)
    db.executemany("INSERT INTO notes (body) VALUES (?)", [("x" * 500,)] * 50)
    db.close()
    with path.open("r+b") as file:
        file.seek(4096)
        file.write(b"\xff" * 4096)


class TestAccess:
    def test_writing_creates_the_file_its_folder_and_its_tables(self, tmp_path: Path) -> None:
        path = tmp_path / "new" / "store.sqlite3"
        db = connect(path, SCHEMA)
        db.execute("INSERT INTO notes (body) VALUES ('a')")  # commits on its own
        db.close()
        assert connect(path).execute("SELECT body FROM notes").fetchall() == [("a",)]

    def test_reading_never_creates_a_missing_file(self, tmp_path: Path) -> None:
        path = tmp_path / "missing.sqlite3"
        with pytest.raises(sqlite3.OperationalError):
            connect(path, access="read")
        assert not path.exists()

    def test_reading_refuses_to_write(self, tmp_path: Path) -> None:
        path = tmp_path / "store.sqlite3"
        _written(path)
        db = connect(path, access="read")
        assert db.execute("SELECT body FROM notes").fetchall() == [("kept",)]
        with pytest.raises(sqlite3.OperationalError):
            db.execute("INSERT INTO notes (body) VALUES ('no')")
        db.close()

    def test_a_snapshot_writes_nothing_beside_a_wal_file(self, tmp_path: Path) -> None:
        path = tmp_path / "store.sqlite3"
        _written(path, wal=True)
        before = sorted(p.name for p in tmp_path.iterdir())
        db = connect(path, access="snapshot")
        assert quick_check(db) == "ok"
        db.close()
        assert sorted(p.name for p in tmp_path.iterdir()) == before

    def test_a_new_file_set_up_by_many_at_once_is_set_up_once(self, tmp_path: Path) -> None:
        path = tmp_path / "shared.sqlite3"

        def open_and_write(n: int) -> None:
            db = connect(path, SCHEMA, wal=True)
            db.execute("INSERT INTO notes (body) VALUES (?)", (str(n),))
            db.close()

        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(open_and_write, range(8)))
        db = connect(path, access="read")
        assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 8
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        db.close()


class TestVersionedSchema:
    def test_a_new_file_gets_the_schema_and_its_version(self, tmp_path: Path) -> None:
        path = tmp_path / "log.sqlite3"
        db = connect(path, SCHEMA, version=3)
        assert db.execute("PRAGMA user_version").fetchone()[0] == 3
        assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 0
        db.close()

    def test_an_existing_file_keeps_its_schema(self, tmp_path: Path) -> None:
        path = tmp_path / "log.sqlite3"
        connect(path, SCHEMA, version=1).close()
        newer = (*SCHEMA, "CREATE TABLE IF NOT EXISTS later(id INTEGER PRIMARY KEY)")
        db = connect(path, newer, version=2)
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        assert "later" not in tables  # upgrades are DATA_DIR's steps, not the opener's
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
        db.close()


class TestRecovery:
    def test_the_check_refuses_a_damaged_file(self, tmp_path: Path) -> None:
        path = tmp_path / "store.sqlite3"
        _damage(path)
        with pytest.raises(sqlite3.DatabaseError, match="integrity check failed|malformed"):
            connect(path, check=True)

    def test_a_file_that_is_no_database_is_damaged_not_busy(self, tmp_path: Path) -> None:
        path = tmp_path / "store.sqlite3"
        path.write_bytes(b"not a database at all" * 100)
        with pytest.raises(sqlite3.DatabaseError) as raised:
            connect(path, SCHEMA, wal=True)
        assert is_damaged(raised.value)

    def test_moved_aside_with_its_side_files_for_a_fresh_start(self, tmp_path: Path) -> None:
        path = tmp_path / "store.sqlite3"
        path.write_bytes(b"not a database at all" * 100)
        for suffix in ("-wal", "-shm"):
            (tmp_path / f"store.sqlite3{suffix}").write_bytes(b"stale")
        aside = move_aside(path, 1_700_000_000.7)
        assert aside.name == "store.sqlite3.corrupt-1700000000"
        assert sorted(p.name for p in tmp_path.iterdir()) == [aside.name]
        db = connect(path, SCHEMA, check=True)
        assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 0
        db.close()

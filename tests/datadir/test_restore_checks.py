"""`restore` trusts nothing in a backup: crafted backups are refused with one clear line and
DATA_DIR is left as it was (here: never created), while a real backup comes back whole."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.datadir import backup, restore
from bot.entrance.loading import load_settings
from bot.process.data_files import DataFiles
from bot.storage.access.sqlite import issue_code_now

REPO = Path(__file__).resolve().parents[2]


def real_backup(tmp_path: Path) -> Path:
    """A backup taken by `backup` of a DATA_DIR with a database, the menus, the stamp, the
    index's files and a file that is not the bot's."""
    data = tmp_path / "data"
    issue_code_now(DataFiles(data).access)
    (data / "admin_menus.json").write_text("[1]", encoding="utf-8")
    (data / "data_version.json").write_text('{"data_version": 2}', encoding="utf-8")
    (data / "search-index.sqlite3").write_bytes(b"")
    (data / "search-index.lock").write_bytes(b"")
    (data / "search-index.terms").mkdir()
    (data / "notes.txt").write_text("mine", encoding="utf-8")
    dest = tmp_path / "backup"
    done = run_bot(tmp_path, data, "backup", str(dest))
    assert done.returncode == 0, done.stderr
    return dest


def run_bot(tmp_path: Path, data: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "docs").mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "bot", *arguments],
        cwd=tmp_path,
        env={
            "PYTHONPATH": str(REPO),
            "DATA_DIR": str(data),
            "SANDBOX_DIR": str(tmp_path / "docs"),
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def edit_manifest(source: Path, change: Callable[[dict[str, object]], object]) -> None:
    path = source / "backup.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    change(manifest)
    path.write_text(json.dumps(manifest), encoding="utf-8")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listed(name: str, digest: str | None = None) -> Callable[[dict[str, object]], None]:
    def change(manifest: dict[str, object]) -> None:
        files = manifest["files"]
        assert isinstance(files, list)
        files.append(name)
        if digest is not None:
            sums = manifest["sha256"]
            assert isinstance(sums, dict)
            sums[name] = digest

    return change


def symlinked_menus(source: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    (source / "admin_menus.json").rename(elsewhere)
    (source / "admin_menus.json").symlink_to(elsewhere)


def linked_index_folder(source: Path, tmp_path: Path) -> None:
    (tmp_path / "chosen").mkdir()
    (source / "search-index.terms").symlink_to(tmp_path / "chosen", target_is_directory=True)
    edit_manifest(source, listed("search-index.terms/"))


def index_folder(source: Path, tmp_path: Path) -> None:
    (source / "search-index.terms").mkdir()
    edit_manifest(source, listed("search-index.terms/"))


def unlisted_file(source: Path, tmp_path: Path) -> None:
    (source / "history.sqlite3-wal").write_bytes(b"x")


def unknown_listed_file(source: Path, tmp_path: Path) -> None:
    (source / "notes.txt").write_text("hi", encoding="utf-8")
    edit_manifest(source, listed("notes.txt", sha256(source / "notes.txt")))


def tampered_file(source: Path, tmp_path: Path) -> None:
    (source / "admin_menus.json").write_text("[1, 666]", encoding="utf-8")


def checksum_missing(source: Path, tmp_path: Path) -> None:
    def change(manifest: dict[str, object]) -> None:
        sums = manifest["sha256"]
        assert isinstance(sums, dict)
        del sums["admin_menus.json"]

    edit_manifest(source, change)


def entry_not_listed(source: Path, tmp_path: Path) -> None:
    def change(manifest: dict[str, object]) -> None:
        files, sums = manifest["files"], manifest["sha256"]
        assert isinstance(files, list) and isinstance(sums, dict)
        files.remove("admin_menus.json")
        del sums["admin_menus.json"]

    edit_manifest(source, change)


def listed_file_missing(source: Path, tmp_path: Path) -> None:
    (source / "admin_menus.json").unlink()


def damaged_database(source: Path, tmp_path: Path) -> None:
    database = source / "access.sqlite3"
    data = bytearray(database.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)
    database.write_bytes(bytes(data))

    def change(manifest: dict[str, object]) -> None:
        sums = manifest["sha256"]
        assert isinstance(sums, dict)
        sums["access.sqlite3"] = sha256(database)

    edit_manifest(source, change)


def binary_manifest(source: Path, tmp_path: Path) -> None:
    (source / "backup.json").write_bytes(b"\xff\xfe{}")


CRAFTED = [
    (symlinked_menus, "the backup's admin_menus.json is a link"),
    (linked_index_folder, "names 'search-index.terms/' among its files, which no backup holds"),
    (index_folder, "names 'search-index.terms/' among its files, which no backup holds"),
    (unlisted_file, "holds the entry history.sqlite3-wal, which its backup.json does not list"),
    (unknown_listed_file, "names 'notes.txt' among its files, which no backup holds"),
    (tampered_file, "admin_menus.json does not match its checksum in backup.json"),
    (checksum_missing, "has no checksum for admin_menus.json: the manifest is incomplete"),
    (entry_not_listed, "holds the entry admin_menus.json, which its backup.json does not list"),
    (listed_file_missing, "the backup is incomplete: admin_menus.json is missing"),
    (damaged_database, "access.sqlite3 in the backup is not a sound database"),
    (binary_manifest, "backup.json is not a backup manifest (not UTF-8 text)"),
]


class TestCraftedBackups:
    @pytest.mark.parametrize(("craft", "said"), CRAFTED, ids=[c.__name__ for c, _ in CRAFTED])
    def test_is_refused_before_anything_is_written(
        self, tmp_path: Path, craft: Callable[[Path, Path], None], said: str
    ) -> None:
        source = real_backup(tmp_path)
        craft(source, tmp_path)
        target = tmp_path / "restored"
        done = run_bot(tmp_path, target, "restore", str(source))
        assert done.returncode == 2, done.stdout + done.stderr
        (line,) = done.stderr.splitlines()
        assert line.startswith("restore refused: ")
        assert said in line
        assert not target.exists()
        assert (
            not list((tmp_path / "chosen").iterdir()) if (tmp_path / "chosen").exists() else True
        )

    def test_a_missing_source_is_named(self, tmp_path: Path) -> None:
        done = run_bot(tmp_path, tmp_path / "restored", "restore", str(tmp_path / "no/such"))
        assert done.returncode == 2
        assert done.stderr.strip() == (
            f"restore refused: {tmp_path / 'no/such'} does not exist: name the folder "
            "`python -m bot backup` wrote"
        )
        assert not (tmp_path / "restored").exists()


class TestRealBackups:
    def test_a_real_backup_holds_only_the_bots_files_and_comes_back_whole(
        self, tmp_path: Path
    ) -> None:
        source = real_backup(tmp_path)
        assert sorted(p.name for p in source.iterdir()) == [
            "access.sqlite3",
            "admin_menus.json",
            "backup.json",
            "data_version.json",
        ]
        target = tmp_path / "restored"
        done = run_bot(tmp_path, target, "restore", str(source))
        assert done.returncode == 0, done.stderr
        assert sorted(p.name for p in target.iterdir()) == [
            "access.sqlite3",
            "admin_menus.json",
            "data_version.json",
        ]
        assert (target / "admin_menus.json").read_text(encoding="utf-8") == "[1]"
        with sqlite3.connect(target / "access.sqlite3") as connection:
            assert connection.execute("PRAGMA quick_check").fetchone() == ("ok",)
        assert "checksums" not in done.stdout

    def test_a_backup_from_before_checksums_is_restored_and_said_unverified(
        self, tmp_path: Path
    ) -> None:
        source = real_backup(tmp_path)
        (source / "search-index.lock").write_bytes(b"")
        edit_manifest(source, lambda manifest: manifest.pop("sha256"))
        edit_manifest(source, listed("search-index.lock"))
        target = tmp_path / "restored"
        done = run_bot(tmp_path, target, "restore", str(source))
        assert done.returncode == 0, done.stderr
        assert "taken before backups carried checksums" in done.stdout
        assert sorted(p.name for p in target.iterdir()) == [
            "access.sqlite3",
            "admin_menus.json",
            "data_version.json",
        ]


class TestBackupSays:
    async def test_what_is_not_in_the_backup(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        data = tmp_path / "data"
        issue_code_now(DataFiles(data).access)
        (data / "search-index.sqlite3").write_bytes(b"")
        (data / "search-index.lock").write_bytes(b"")
        (data / "search-index.terms").mkdir()
        (data / "notes.txt").write_text("mine", encoding="utf-8")
        settings = load_settings(data_dir=data, sandbox_dir=tmp_path / "my docs")
        assert await backup.serve(settings, dest=str(tmp_path / "copy")) == 0
        printed = capsys.readouterr().out
        backed_up = printed.split("\nNot backed up")[0]
        assert "search-index" not in backed_up
        assert "access.sqlite3" in backed_up
        assert (
            "Not backed up: the search index (search-index.lock, search-index.sqlite3, "
            "search-index.terms/)" in printed
        )
        assert "Not backed up, not the bot's files: notes.txt." in printed
        assert (
            f"Not backed up: the documents folder (SANDBOX_DIR {tmp_path / 'my docs'})" in printed
        )
        assert f"tar -czf documents.tar.gz -C '{tmp_path / 'my docs'}' ." in printed
        assert sorted(os.listdir(tmp_path / "copy")) == ["access.sqlite3", "backup.json"]
        assert (
            await restore.serve(
                load_settings(data_dir=tmp_path / "again"), src=str(tmp_path / "copy")
            )
            == 0
        )

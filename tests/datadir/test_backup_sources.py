"""The sources' state (`DATA_DIR/sources/<name>.json`) is the bot's: `backup` copies it (not
the locks, not a state being written) and `restore` puts it back, checked like every other
file; a crafted sources folder in a backup is refused before anything is written."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.datadir import backup, restore
from bot.datadir.manifest import Refused
from bot.documents.sources.state import PassReport, Placed, SourceState, StateStore, Trouble
from bot.entrance.loading import load_settings
from bot.process.data_files import DataFiles
from bot.storage.access.sqlite import issue_code_now

STATE = SourceState(
    placed={"a.txt": Placed("id-1", "etag-1", 3, None, 3, 1_700_000_000_000_000_000)},
    last=PassReport(at=1_700_000_000.0, added=1),
    last_success=1_700_000_000.0,
)


def _data_dir(tmp_path: Path) -> Path:
    """A DATA_DIR with a database, two sources' state, their locks, a state being written and
    a failure the admins were told of."""
    data = tmp_path / "data"
    issue_code_now(DataFiles(data).access)
    store = StateStore(DataFiles(data).sources)
    store.save("nextcloud", STATE)
    store.save("s3-contracts", SourceState())
    (store.folder / "nextcloud.lock").write_bytes(b"")
    (store.folder / ".nextcloud.json.0a1b2c3d.tmp").write_text("{", encoding="utf-8")
    store.keep_trouble("s3-contracts", Trouble(1_700_000_000.0, 1_700_000_000.0))
    return data


def _backup(tmp_path: Path) -> Path:
    dest = tmp_path / "copy"
    backup.take_backup(_data_dir(tmp_path), dest)
    return dest


class TestBackupAndRestore:
    async def test_the_state_comes_back_and_is_not_called_foreign(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        data = _data_dir(tmp_path)
        settings = load_settings(data_dir=data, sandbox_dir=tmp_path / "docs", _env_file=None)
        assert await backup.serve(settings, dest=str(tmp_path / "copy")) == 0
        printed = capsys.readouterr().out
        assert "not the bot's files" not in printed
        assert "  sources/nextcloud.json\n" in printed
        assert "  sources/s3-contracts.json\n" in printed
        copy = tmp_path / "copy"
        assert sorted(os.listdir(copy / "sources")) == ["nextcloud.json", "s3-contracts.json"]
        manifest = json.loads((copy / "backup.json").read_text(encoding="utf-8"))
        assert "sources/nextcloud.json" in manifest["sha256"]

        again = tmp_path / "again"
        restored = load_settings(data_dir=again, _env_file=None)
        assert await restore.serve(restored, src=str(copy)) == 0
        assert "sources/nextcloud.json" in capsys.readouterr().out
        assert sorted(os.listdir(again / "sources")) == ["nextcloud.json", "s3-contracts.json"]
        assert StateStore(again / "sources").load("nextcloud") == STATE

    def test_a_data_dir_with_only_locks_backs_up_no_sources_folder(self, tmp_path: Path) -> None:
        data = tmp_path / "data"
        issue_code_now(DataFiles(data).access)
        DataFiles(data).sources.mkdir()
        (DataFiles(data).sources / "nextcloud.lock").write_bytes(b"")
        report = backup.take_backup(data, tmp_path / "copy")
        assert report.left_out == []
        assert not (tmp_path / "copy" / "sources").exists()

    def test_what_is_not_a_state_file_is_left_out(self, tmp_path: Path) -> None:
        data = _data_dir(tmp_path)
        (data / "sources" / "notes.txt").write_text("mine", encoding="utf-8")
        (data / "sources" / "linked.json").symlink_to(data / "access.sqlite3")
        report = backup.take_backup(data, tmp_path / "copy")
        assert report.left_out == ["sources/linked.json", "sources/notes.txt"]
        assert sorted(os.listdir(tmp_path / "copy" / "sources")) == [
            "nextcloud.json",
            "s3-contracts.json",
        ]


def _listed(source: Path, name: str) -> None:
    path = source / "backup.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["files"].append(name)
    path.write_text(json.dumps(manifest), encoding="utf-8")


def unlisted_state(source: Path, tmp_path: Path) -> None:
    (source / "sources" / "other.json").write_text("{}", encoding="utf-8")


def linked_state(source: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.json").write_bytes((source / "sources/nextcloud.json").read_bytes())
    (source / "sources" / "nextcloud.json").unlink()
    (source / "sources" / "nextcloud.json").symlink_to(tmp_path / "elsewhere.json")


def linked_folder(source: Path, tmp_path: Path) -> None:
    (source / "sources").rename(tmp_path / "chosen")
    (source / "sources").symlink_to(tmp_path / "chosen", target_is_directory=True)


def escaping_name(source: Path, tmp_path: Path) -> None:
    _listed(source, "sources/../access.sqlite3")


def lock_listed(source: Path, tmp_path: Path) -> None:
    (source / "sources" / "nextcloud.lock").write_bytes(b"")
    _listed(source, "sources/nextcloud.lock")


def tampered_state(source: Path, tmp_path: Path) -> None:
    (source / "sources" / "nextcloud.json").write_text("{}", encoding="utf-8")


CRAFTED: list[tuple[Callable[[Path, Path], None], str]] = [
    (unlisted_state, "holds the entry sources/other.json, which its backup.json does not list"),
    (linked_state, "the backup's nextcloud.json is a link"),
    (linked_folder, "holds the entry sources, which its backup.json does not list"),
    (escaping_name, "names 'sources/../access.sqlite3' among its files, which no backup holds"),
    (lock_listed, "names 'sources/nextcloud.lock' among its files, which no backup holds"),
    (tampered_state, "sources/nextcloud.json does not match its checksum in backup.json"),
]


class TestCraftedBackups:
    @pytest.mark.parametrize(("craft", "said"), CRAFTED, ids=[c.__name__ for c, _ in CRAFTED])
    def test_is_refused_before_anything_is_written(
        self, tmp_path: Path, craft: Callable[[Path, Path], None], said: str
    ) -> None:
        source = _backup(tmp_path)
        craft(source, tmp_path)
        target = tmp_path / "restored"
        with pytest.raises(Refused) as refused:
            restore.restore_backup(source, target)
        assert said in str(refused.value)
        assert not target.exists()

"""The mirror's rules, each against an in-memory remote and a real folder, trash and audit log."""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.documents.sources.mirror import Mirror
from bot.documents.sources.remote import SourceError
from bot.documents.sources.state import StateStore
from bot.documents.trash import Trash
from bot.storage.audit.sqlite import SqliteAuditLog
from tests.fakes.memory_source import MemorySource
from tools import Toolbox
from tools.config import ToolSettings


@dataclass
class World:
    root: Path
    remote: MemorySource
    mirror: Mirror
    audit: SqliteAuditLog
    store: StateStore
    refreshed: list[str] = field(default_factory=list)

    @property
    def folder(self) -> Path:
        return self.root / "nextcloud"

    def files(self) -> dict[str, bytes]:
        """Every file below the source's folder, hidden ones too, by relative path."""
        return {
            p.relative_to(self.folder).as_posix(): p.read_bytes()
            for p in sorted(self.folder.rglob("*"))
            if p.is_file()
        }

    def trashed(self) -> list[str]:
        return sorted(item.path for item in Trash(self.root).items())


def _world(tmp_path: Path, remote: MemorySource, percent: float = 20.0) -> World:
    root = (tmp_path / "sandbox").resolve()
    root.mkdir()
    audit = SqliteAuditLog(tmp_path / "data" / "audit.sqlite3")
    store = StateStore(tmp_path / "data" / "sources")
    refreshed: list[str] = []

    async def refresh(rel: str) -> None:
        refreshed.append(rel)

    mirror = Mirror(
        remote,
        folder="nextcloud",
        root=root,
        store=store,
        trash=Trash(root),
        max_delete_percent=percent,
        audit=audit,
        refresh=refresh,
    )
    return World(root, remote, mirror, audit, store, refreshed)


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    w = _world(tmp_path, MemorySource("nextcloud"))
    yield w
    await w.audit.close()


def _fill(remote: MemorySource, count: int) -> None:
    for index in range(count):
        remote.put(f"docs/file{index:02d}.txt", f"content {index}")


class TestPlacing:
    async def test_a_first_pass_places_every_item(self, world: World) -> None:
        _fill(world.remote, 3)
        outcome = await world.mirror.run_pass()
        assert outcome.report.added == 3
        assert outcome.report.ok
        expected = {f"docs/file{i:02d}.txt": f"content {i}".encode() for i in range(3)}
        assert world.files() == expected
        assert sorted(world.refreshed) == [f"nextcloud/docs/file{i:02d}.txt" for i in range(3)]
        state = await world.mirror.state()
        assert state.last_success == outcome.report.at
        assert set(state.placed) == {f"docs/file{i:02d}.txt" for i in range(3)}

    async def test_an_unchanged_source_costs_one_listing_and_no_fetch(self, world: World) -> None:
        _fill(world.remote, 5)
        await world.mirror.run_pass()
        world.remote.fetched.clear()
        world.refreshed.clear()
        outcome = await world.mirror.run_pass()
        assert outcome.report.unchanged == 5
        assert (outcome.report.added, outcome.report.changed, outcome.report.removed) == (0, 0, 0)
        assert world.remote.fetched == []
        assert world.refreshed == []

    async def test_a_new_version_is_fetched(self, world: World) -> None:
        _fill(world.remote, 2)
        await world.mirror.run_pass()
        world.remote.put("docs/file01.txt", "new content")
        outcome = await world.mirror.run_pass()
        assert outcome.report.changed == 1
        assert world.files()["docs/file01.txt"] == b"new content"

    async def test_a_local_edit_is_replaced_by_the_sources_copy(self, world: World) -> None:
        _fill(world.remote, 2)
        await world.mirror.run_pass()
        (world.folder / "docs/file00.txt").write_text("edited here, and longer")
        outcome = await world.mirror.run_pass()
        assert outcome.report.changed == 1
        assert world.files()["docs/file00.txt"] == b"content 0"


class TestFailedListings:
    async def test_a_listing_that_fails_deletes_nothing_and_is_reported(
        self, world: World
    ) -> None:
        _fill(world.remote, 4)
        await world.mirror.run_pass()
        world.remote.fail_listing = SourceError("unreachable", "cloud.example.com: no answer")
        outcome = await world.mirror.run_pass()
        assert len(world.files()) == 4
        assert outcome.report.problem == "unreachable"
        assert outcome.report.error is not None
        assert "cloud.example.com: no answer" in outcome.report.error
        assert "\n" not in outcome.report.error
        state = await world.mirror.state()
        assert state.last == outcome.report
        assert state.last_success is not None and state.last_success < outcome.report.at + 1

    async def test_an_unexpected_exception_is_named_by_its_type_only(self, world: World) -> None:
        _fill(world.remote, 1)
        await world.mirror.run_pass()
        world.remote.fail_listing = RuntimeError("https://alice:hunter2@cloud/ failed")
        outcome = await world.mirror.run_pass()
        assert outcome.report.problem == "broken"
        assert outcome.report.error is not None
        assert "hunter2" not in outcome.report.error
        assert "RuntimeError" in outcome.report.error
        assert len(world.files()) == 1

    async def test_an_empty_listing_where_there_were_files_deletes_nothing(
        self, world: World
    ) -> None:
        _fill(world.remote, 3)
        await world.mirror.run_pass()
        for path in list(world.remote.files):
            world.remote.remove(path)
        outcome = await world.mirror.run_pass()
        assert len(world.files()) == 3
        assert outcome.report.problem == "suspicious"
        assert outcome.pending is not None
        assert outcome.pending.count == 3
        assert outcome.asked
        assert world.trashed() == []


class TestDeletions:
    async def test_a_file_gone_at_the_source_goes_to_the_trash_audited_and_unindexed(
        self, world: World
    ) -> None:
        _fill(world.remote, 10)
        await world.mirror.run_pass()
        world.refreshed.clear()
        world.remote.remove("docs/file03.txt")
        outcome = await world.mirror.run_pass()
        assert outcome.report.removed == 1
        assert "docs/file03.txt" not in world.files()
        assert world.trashed() == ["nextcloud/docs/file03.txt"]
        assert world.refreshed == ["nextcloud/docs/file03.txt"]
        (entry,) = await world.audit.recent()
        assert (entry.action, entry.subject) == ("delete", "nextcloud/docs/file03.txt")
        assert (entry.actor_id, entry.actor_name) == (None, "source:nextcloud")

    async def test_files_the_mirror_did_not_place_count_but_hidden_ones_stay(
        self, world: World
    ) -> None:
        _fill(world.remote, 10)
        await world.mirror.run_pass()
        (world.folder / "dropped.txt").write_text("an admin's upload")
        (world.folder / ".keep").write_text("hidden")
        outcome = await world.mirror.run_pass()
        assert outcome.report.removed == 1
        assert world.trashed() == ["nextcloud/dropped.txt"]
        assert (world.folder / ".keep").exists()

    async def test_folders_left_empty_are_removed(self, world: World) -> None:
        _fill(world.remote, 9)
        world.remote.put("old/only.txt", "x")
        await world.mirror.run_pass()
        world.remote.remove("old/only.txt")
        await world.mirror.run_pass()
        assert not (world.folder / "old").exists()


class TestGuard:
    async def test_too_many_deletions_stop_and_ask_while_additions_go_ahead(
        self, world: World
    ) -> None:
        _fill(world.remote, 10)
        await world.mirror.run_pass()
        for index in range(3):
            world.remote.remove(f"docs/file{index:02d}.txt")
        world.remote.put("docs/new.txt", "new")
        outcome = await world.mirror.run_pass()
        assert outcome.report.removed == 0
        assert outcome.report.added == 1
        assert outcome.report.problem == "guard"
        assert not outcome.report.ok
        assert outcome.pending is not None
        assert (outcome.pending.count, outcome.pending.total) == (3, 10)
        assert outcome.asked
        assert len(world.files()) == 11
        again = await world.mirror.run_pass()
        assert again.pending == outcome.pending
        assert not again.asked  # the same set is asked about once
        assert len(world.files()) == 11

    async def test_a_confirmation_lets_the_next_pass_delete_exactly_that_set(
        self, world: World
    ) -> None:
        _fill(world.remote, 10)
        await world.mirror.run_pass()
        for index in range(3):
            world.remote.remove(f"docs/file{index:02d}.txt")
        outcome = await world.mirror.run_pass()
        assert outcome.pending is not None
        assert await world.mirror.confirm(outcome.pending.token)
        done = await world.mirror.run_pass()
        assert done.report.removed == 3
        assert done.report.ok
        assert done.pending is None
        assert len(world.trashed()) == 3

    async def test_a_set_that_changed_since_is_asked_again(self, world: World) -> None:
        _fill(world.remote, 10)
        await world.mirror.run_pass()
        for index in range(3):
            world.remote.remove(f"docs/file{index:02d}.txt")
        first = await world.mirror.run_pass()
        assert first.pending is not None
        assert await world.mirror.confirm(first.pending.token)
        world.remote.remove("docs/file05.txt")
        second = await world.mirror.run_pass()
        assert second.report.removed == 0
        assert second.asked
        assert second.pending is not None
        assert second.pending.token != first.pending.token
        assert second.pending.count == 4
        assert not await world.mirror.confirm(first.pending.token)

    async def test_a_source_may_allow_more(self, tmp_path: Path) -> None:
        w = _world(tmp_path, MemorySource("nextcloud"), percent=50)
        _fill(w.remote, 10)
        await w.mirror.run_pass()
        for index in range(3):
            w.remote.remove(f"docs/file{index:02d}.txt")
        outcome = await w.mirror.run_pass()
        await w.audit.close()
        assert outcome.report.removed == 3


class TestMoves:
    async def test_a_rename_with_a_stable_id_is_a_local_rename(self, world: World) -> None:
        _fill(world.remote, 10)
        await world.mirror.run_pass()
        world.remote.fetched.clear()
        world.refreshed.clear()
        world.remote.rename("docs/file04.txt", "archive/renamed.txt")
        outcome = await world.mirror.run_pass()
        assert outcome.report.moved == 1
        assert (outcome.report.added, outcome.report.removed) == (0, 0)
        assert world.remote.fetched == []
        assert world.files()["archive/renamed.txt"] == b"content 4"
        assert "docs/file04.txt" not in world.files()
        assert world.trashed() == []
        assert world.refreshed == ["nextcloud/docs/file04.txt", "nextcloud/archive/renamed.txt"]

    async def test_where_ids_are_paths_the_content_hash_shows_a_rename(
        self, tmp_path: Path
    ) -> None:
        w = _world(tmp_path, MemorySource("nextcloud", ids="paths"))
        _fill(w.remote, 10)
        await w.mirror.run_pass()
        w.remote.fetched.clear()
        w.remote.rename("docs/file04.txt", "renamed.txt")
        outcome = await w.mirror.run_pass()
        await w.audit.close()
        assert outcome.report.moved == 1
        assert w.remote.fetched == []
        assert w.files()["renamed.txt"] == b"content 4"

    async def test_without_ids_or_hashes_a_rename_is_a_delete_and_a_download(
        self, tmp_path: Path
    ) -> None:
        w = _world(tmp_path, MemorySource("nextcloud", ids="paths", hashes=False))
        _fill(w.remote, 10)
        await w.mirror.run_pass()
        w.remote.rename("docs/file04.txt", "renamed.txt")
        outcome = await w.mirror.run_pass()
        await w.audit.close()
        assert (outcome.report.moved, outcome.report.added, outcome.report.removed) == (0, 1, 1)
        assert w.files()["renamed.txt"] == b"content 4"


class TestDownloads:
    async def test_a_failed_fetch_leaves_the_old_version_and_no_partial_file(
        self, world: World
    ) -> None:
        _fill(world.remote, 2)
        await world.mirror.run_pass()
        world.remote.put("docs/file00.txt", "a new version")
        world.remote.put("docs/fresh.txt", "never arrives")
        world.remote.fail_fetch["docs/file00.txt"] = SourceError("broken", "read cut short")
        world.remote.fail_fetch["docs/fresh.txt"] = SourceError("broken", "read cut short")
        outcome = await world.mirror.run_pass()
        assert world.files() == {"docs/file00.txt": b"content 0", "docs/file01.txt": b"content 1"}
        assert outcome.report.problem == "fetch"
        assert outcome.report.error is not None
        assert "2 item(s) failed" in outcome.report.error
        world.remote.fail_fetch.clear()
        again = await world.mirror.run_pass()
        assert again.report.ok
        assert world.files()["docs/file00.txt"] == b"a new version"
        assert world.files()["docs/fresh.txt"] == b"never arrives"

    async def test_an_item_changed_while_fetched_is_fetched_again_next_pass(
        self, world: World
    ) -> None:
        _fill(world.remote, 1)
        world.remote.change_while_fetched.add("docs/file00.txt")
        outcome = await world.mirror.run_pass()
        assert world.files() == {}
        assert outcome.report.skipped == 1
        world.remote.change_while_fetched.clear()
        await world.mirror.run_pass()
        assert world.files() == {"docs/file00.txt": b"content 0"}

    async def test_a_staged_download_left_by_a_crash_is_removed(self, world: World) -> None:
        _fill(world.remote, 1)
        await world.mirror.run_pass()
        (world.folder / "docs/.file00.txt.part-0a1b2c3d").write_text("half")
        await world.mirror.run_pass()
        assert world.files() == {"docs/file00.txt": b"content 0"}


class TestPathSafety:
    @pytest.mark.parametrize(
        "path",
        [
            "../escaped.txt",
            "/etc/escaped.txt",
            "a/../../escaped.txt",
            "a/./b.txt",
            "a//b.txt",
            "bad\x01name.txt",
            "back\\slash.txt",
            "x" * 300 + ".txt",
        ],
    )
    async def test_an_unsafe_remote_path_is_skipped_and_reported(
        self, world: World, tmp_path: Path, path: str
    ) -> None:
        from bot.documents.sources.remote import RemoteItem  # noqa: PLC0415

        _fill(world.remote, 1)
        world.remote.extra_items.append(RemoteItem(path, path, 3, "v", 0.0))
        outcome = await world.mirror.run_pass()
        assert outcome.report.problem == "unsafe"
        assert outcome.report.error is not None
        assert "refused" in outcome.report.error
        assert outcome.report.added == 1
        assert world.files() == {"docs/file00.txt": b"content 0"}
        assert not (tmp_path / "escaped.txt").exists()
        assert not (tmp_path / "sandbox" / "escaped.txt").exists()

    async def test_a_hidden_remote_path_is_skipped_quietly(self, world: World) -> None:
        world.remote.put(".git/config", "x")
        world.remote.put("docs/.DS_Store", "x")
        world.remote.put("docs/a.txt", "a")
        outcome = await world.mirror.run_pass()
        assert outcome.report.ok
        assert outcome.report.skipped == 2
        assert world.files() == {"docs/a.txt": b"a"}

    async def test_a_link_in_the_folder_never_leads_a_write_outside(
        self, world: World, tmp_path: Path
    ) -> None:
        outside = tmp_path / "outside"
        outside.mkdir()
        world.folder.mkdir()
        os.symlink(outside, world.folder / "link")
        world.remote.put("link/evil.txt", "x")
        outcome = await world.mirror.run_pass()
        assert list(outside.iterdir()) == []
        assert outcome.report.error is not None
        assert "'link/evil.txt': cannot be written" in outcome.report.error


class TestState:
    async def test_the_state_file_is_written_whole_and_holds_no_content(
        self, world: World
    ) -> None:
        world.remote.put("a.txt", "secret content")
        await world.mirror.run_pass()
        names = sorted(p.name for p in world.store.folder.iterdir())
        assert names == ["nextcloud.json"]
        data = json.loads((world.store.folder / "nextcloud.json").read_text())
        assert "secret content" not in json.dumps(data)
        assert data["last"]["added"] == 1

    async def test_an_unreadable_state_means_fetching_again_not_deleting(
        self, world: World
    ) -> None:
        _fill(world.remote, 3)
        await world.mirror.run_pass()
        world.store.path("nextcloud").write_text("{not json")
        outcome = await world.mirror.run_pass()
        assert outcome.report.changed == 3
        assert outcome.report.removed == 0
        assert len(world.files()) == 3


class TestScale:
    async def test_ten_thousand_unchanged_items_take_no_download_and_little_time(
        self, world: World
    ) -> None:
        for index in range(10_000):
            world.remote.put(f"d{index // 500:02d}/f{index:05d}.txt", b"x")
        await world.mirror.run_pass()
        world.remote.fetched.clear()
        started = time.perf_counter()
        outcome = await world.mirror.run_pass()
        took = time.perf_counter() - started
        assert outcome.report.unchanged == 10_000
        assert world.remote.fetched == []
        assert took < 10.0


class TestIndex:
    async def test_a_document_deleted_at_the_source_stops_being_found_within_the_pass(
        self, tmp_path: Path
    ) -> None:
        root = (tmp_path / "sandbox").resolve()
        root.mkdir()
        settings = ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data")
        toolbox = Toolbox(settings, watch="rescan", watch_interval=3600)
        await toolbox.start()
        try:
            await toolbox.wait_ready()
            remote = MemorySource("nextcloud")
            for index in range(9):
                remote.put(f"other{index}.txt", "ordinary text")
            remote.put("policy.txt", "the zorbulyantsia policy")
            mirror = Mirror(
                remote,
                folder="nextcloud",
                root=root,
                store=StateStore(tmp_path / "data" / "sources"),
                trash=Trash(root),
                max_delete_percent=20,
                refresh=toolbox.refresh,
            )
            await mirror.run_pass()
            assert await _found(toolbox, "zorbulyantsia") == ["nextcloud/policy.txt"]
            remote.remove("policy.txt")
            await mirror.run_pass()
            assert await _found(toolbox, "zorbulyantsia") == []
        finally:
            await toolbox.close()


async def _found(toolbox: Toolbox, word: str) -> list[str]:
    raw = (await toolbox.execute("search_files", {"query": word})).text
    return [str(r["path"]) for r in json.loads(raw).get("results") or []]

"""The sources as the front doors use them: status, one pass, confirmation, the lock, metrics,
the background loop, and `python -m bot sources` with its exit codes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.documents.sources.command import check_each, describe, sync_each
from bot.documents.sources.config import Credentials, parse_sources
from bot.documents.sources.health import Health
from bot.documents.sources.locks import SyncLocks
from bot.documents.sources.registry import SourceKindError, open_source
from bot.documents.sources.remote import Source, SourceError
from bot.documents.sources.runner import Sources, SourceStatus
from bot.monitoring import Metrics
from bot.storage import PostgresDatabase
from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.memory_source import MemorySource
from tests.fakes.mirrored_sources import SOURCES, Remotes
from tests.fakes.processes import bare_env, run_python


@pytest.fixture
def remotes() -> Remotes:
    return Remotes()


@pytest.fixture
async def sources(tmp_path: Path, remotes: Remotes) -> AsyncIterator[Sources]:
    (tmp_path / "sandbox").mkdir()
    made = Sources(
        parse_sources(SOURCES),
        root=tmp_path / "sandbox",
        data=tmp_path / "data" / "sources",
        max_delete_percent=20,
        opener=remotes.open,
    )
    made.open()
    yield made
    await made.stop()


def _fill(remote: Source, count: int) -> None:
    assert isinstance(remote, MemorySource)
    for index in range(count):
        remote.put(f"f{index}.txt", f"text {index}")


class TestStatus:
    async def test_a_source_never_synced(self, sources: Sources) -> None:
        statuses = await sources.statuses()
        assert [(s.name, s.kind, s.folder) for s in statuses] == [
            ("nextcloud", "webdav", "nextcloud"),
            ("contracts", "s3", "contracts"),
        ]
        assert statuses[0].every_s == 900
        assert statuses[0].last is None
        assert "never synced" in describe(statuses[0], now=0)

    async def test_after_a_pass(self, sources: Sources, remotes: Remotes) -> None:
        _fill(remotes.made["nextcloud"], 3)
        outcome = await sources.sync("nextcloud")
        assert outcome is not None
        status = await sources.status("nextcloud")
        assert status.last == outcome.report
        assert status.last_success == outcome.report.at
        text = describe(status, now=outcome.report.at + 90)
        assert "3 added, 0 changed, 0 moved, 0 removed" in text
        assert "1.5m ago" in text
        assert "alice" not in text and "example.com" not in text


class TestConfirmation:
    async def test_the_hook_hears_a_new_set_once_and_a_confirmation_deletes_it(
        self, sources: Sources, remotes: Remotes
    ) -> None:
        asked: list[SourceStatus] = []

        async def tell(status: SourceStatus) -> None:
            asked.append(status)

        sources.on_ask(tell)
        remote = remotes.made["nextcloud"]
        assert isinstance(remote, MemorySource)
        _fill(remote, 10)
        await sources.sync("nextcloud")
        for index in range(5):
            remote.remove(f"f{index}.txt")
        await sources.sync("nextcloud")
        await sources.sync("nextcloud")
        assert len(asked) == 1
        pending = asked[0].pending
        assert pending is not None
        assert (pending.count, pending.total) == (5, 10)
        assert await sources.confirm("nextcloud", "0" * 16) == "stale"
        assert await sources.confirm("nowhere", pending.token) == "unknown"
        assert await sources.confirm("nextcloud", pending.token) == "confirmed"
        outcome = await sources.sync("nextcloud")
        assert outcome is not None
        assert outcome.report.removed == 5

    async def test_a_confirmation_wakes_the_background_loop(
        self, tmp_path: Path, remotes: Remotes
    ) -> None:
        synced = Synced()
        (tmp_path / "sandbox").mkdir()
        sources = Sources(
            parse_sources(SOURCES)[:1],
            root=tmp_path / "sandbox",
            data=tmp_path / "data",
            max_delete_percent=20,
            opener=remotes.open,
            observer=synced,
        )
        sources.open()
        remote = remotes.made["nextcloud"]
        assert isinstance(remote, MemorySource)
        _fill(remote, 10)
        await sources.sync("nextcloud")
        for index in range(5):
            remote.remove(f"f{index}.txt")
        outcome = await sources.sync("nextcloud")
        assert outcome is not None and outcome.pending is not None
        remote.listed.clear()
        synced.event.clear()
        await sources.start()
        try:
            async with asyncio.timeout(10):
                await remote.listed.wait()  # the first background pass, at start: still asks
                assert await sources.confirm("nextcloud", outcome.pending.token) == "confirmed"
                await synced.event.wait()  # the pass the confirmation woke
        finally:
            await sources.stop()
        assert len(list((tmp_path / "sandbox" / "nextcloud").iterdir())) == 5
        assert remote.closed


class TestHealth:
    async def test_only_a_failed_listing_is_trouble_and_only_a_listener_marks_it_told(
        self, sources: Sources, remotes: Remotes
    ) -> None:
        remote = remotes.made["nextcloud"]
        assert isinstance(remote, MemorySource)
        _fill(remote, 3)
        remote.fail_listing = SourceError("timeout", "no answer in 30 s")
        await sources.sync("nextcloud")  # nobody listens (`sources sync`): nothing kept
        heard: list[tuple[str, Health]] = []

        async def hear(status: SourceStatus, health: Health) -> None:
            heard.append((status.name, health))

        sources.on_health(hear)
        await sources.sync("nextcloud")
        assert [(n, h.event, h.reason) for n, h in heard] == [
            ("nextcloud", "failed", "the listing failed (timeout): no answer in 30 s")
        ]
        remote.fail_listing = None
        remote.fail_fetch["f1.txt"] = SourceError("refused", "f1.txt is locked")
        outcome = await sources.sync("nextcloud")  # listed, one item not fetched: it works
        assert outcome is not None and outcome.report.problem == "fetch"
        assert [h.event for _, h in heard] == ["failed", "recovered"]
        assert heard[1][1].report.added == 2
        await sources.sync("nextcloud")
        assert len(heard) == 2


class Synced:
    """Hears the passes that succeeded."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    def source_synced(self, name: str, *, items: int, at: float) -> None:
        del name, items, at
        self.event.set()

    def source_failed(self, name: str) -> None:
        del name


class TestLocks:
    async def test_a_source_another_process_syncs_is_skipped(
        self, sources: Sources, remotes: Remotes, tmp_path: Path
    ) -> None:
        other = SyncLocks(tmp_path / "data" / "sources")
        async with other.hold("nextcloud") as mine:
            assert mine
            assert await sources.sync("nextcloud") is None
        assert await sources.sync("nextcloud") is not None

    async def test_workers_on_one_database_never_sync_a_source_at_once(
        self, remotes: Remotes, tmp_path: Path, postgres_url: str
    ) -> None:
        """Two workers on machines of their own (each its DATA_DIR and folder, so the file
        locks do not meet) share the database: its lock alone keeps their passes apart."""
        remote = remotes.made["nextcloud"] = MemorySource("nextcloud")
        _fill(remote, 3)
        remote.hold = asyncio.Event()
        databases = [await PostgresDatabase.open(postgres_url) for _ in range(2)]
        workers = [
            Sources(
                parse_sources(SOURCES),
                root=tmp_path / f"sandbox{n}",
                data=tmp_path / f"data{n}" / "sources",
                max_delete_percent=20,
                opener=remotes.open,
                locks=SyncLocks(tmp_path / f"data{n}" / "sources", database.session),
            )
            for n, database in enumerate(databases)
        ]
        try:
            async with asyncio.timeout(10):
                held = asyncio.create_task(workers[0].sync("nextcloud"))
                await remote.listed.wait()  # the first worker's pass is in its listing
                assert await workers[1].sync("nextcloud") is None
                other = await workers[1].sync("contracts")  # another source is free
                assert other is not None and other.report.ok
                remote.hold.set()
                first = await held
                assert first is not None and first.report.added == 3
                second = await workers[1].sync("nextcloud")  # the lock was let go
            assert second is not None and second.report.added == 3
            assert remote.listings == 2
        finally:
            for worker in workers:
                await worker.stop()
            for database in databases:
                await database.close()


class TestMetrics:
    async def test_success_items_and_errors_by_source_name(
        self, tmp_path: Path, remotes: Remotes
    ) -> None:
        configs = parse_sources(SOURCES)
        metrics = Metrics(sources=[c.name for c in configs])
        (tmp_path / "sandbox").mkdir()
        sources = Sources(
            configs,
            root=tmp_path / "sandbox",
            data=tmp_path / "data",
            max_delete_percent=20,
            opener=remotes.open,
            observer=metrics,
            clock=lambda: 1_700_000_000.0,
        )
        sources.open()
        _fill(remotes.made["nextcloud"], 4)
        await sources.sync("nextcloud")
        remote = remotes.made["contracts"]
        assert isinstance(remote, MemorySource)
        remote.fail_listing = SourceError("auth", "s3.example.com refused the key")
        await sources.sync("contracts")
        page = metrics.render().decode()
        assert 'docs_bot_source_last_success_timestamp_seconds{source="nextcloud"} 1.7e+09' in page
        assert 'docs_bot_source_items{source="nextcloud"} 4.0' in page
        assert 'docs_bot_source_errors_total{source="contracts"} 1.0' in page
        assert 'docs_bot_source_errors_total{source="nextcloud"} 0.0' in page
        assert "example.com" not in page


class TestCommandLines:
    async def test_sync_exits_0_when_every_pass_succeeds(
        self, sources: Sources, remotes: Remotes, capsys: pytest.CaptureFixture[str]
    ) -> None:
        _fill(remotes.made["nextcloud"], 2)
        assert await sync_each(sources, ["nextcloud", "contracts"]) == 0
        out = capsys.readouterr()
        assert out.out.splitlines() == [
            "nextcloud: 2 added, 0 changed, 0 moved, 0 removed",
            "contracts: 0 added, 0 changed, 0 moved, 0 removed",
        ]
        assert out.err == ""

    async def test_sync_says_one_line_per_failed_source(
        self, sources: Sources, remotes: Remotes, capsys: pytest.CaptureFixture[str]
    ) -> None:
        remote = remotes.made["contracts"]
        assert isinstance(remote, MemorySource)
        remote.fail_listing = SourceError("unreachable", "s3.example.com cannot be reached")
        assert await sync_each(sources, ["nextcloud", "contracts"]) == 1
        # Picked by content: a log handler another test left on stderr may add its own lines.
        err = capsys.readouterr().err.splitlines()
        assert [line for line in err if line.startswith(("contracts:", "nextcloud:"))] == [
            "contracts: the listing failed (unreachable): s3.example.com cannot be reached; "
            "nothing was deleted"
        ]

    async def test_check_changes_nothing(
        self,
        sources: Sources,
        remotes: Remotes,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        _fill(remotes.made["nextcloud"], 2)
        remote = remotes.made["contracts"]
        assert isinstance(remote, MemorySource)
        remote.fail_listing = SourceError("auth", "s3.example.com refused the key")
        assert await check_each(sources, ["nextcloud", "contracts"]) == 1
        assert capsys.readouterr().out.splitlines() == [
            "✓ nextcloud: 2 item(s) listed",
            "✗ contracts: s3.example.com refused the key (auth)",
        ]
        assert not (tmp_path / "sandbox" / "nextcloud").exists()


class TestRegistry:
    def test_a_missing_credential_is_one_line_naming_the_variable(self) -> None:
        (config, _) = parse_sources(SOURCES)
        try:
            open_source(config, Credentials({}))
        except SourceKindError as exc:  # the kind's module is not in this install
            assert "'webdav' cannot be loaded" in str(exc)
        except Exception as exc:  # the kind's own refusal, worded by the kind
            assert "NEXTCLOUD_PASSWORD" in str(exc)
        else:
            pytest.fail("opened without its password")


class TestEntrance:
    async def test_list_needs_no_credential_and_prints_none(self, tmp_path: Path) -> None:
        (tmp_path / "sources.toml").write_text(SOURCES)
        env = bare_env(SOURCES_FILE=str(tmp_path / "sources.toml"), DATA_DIR=str(tmp_path / "d"))
        done = await run_python("-m", "bot", "sources", "list", env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[0] == "nextcloud (webdav) → nextcloud/, every 15m"
        assert "alice" not in done.stdout

    async def test_a_bad_sources_file_is_one_line_and_exit_2(self, tmp_path: Path) -> None:
        (tmp_path / "sources.toml").write_text('[[source]]\nname = "x"\nkind = "ftp"\n')
        env = bare_env(SOURCES_FILE=str(tmp_path / "sources.toml"), DATA_DIR=str(tmp_path / "d"))
        done = await run_python("-m", "bot", "sources", "list", env=env, cwd=tmp_path)
        assert done.returncode == 2
        assert "SOURCES_FILE" in done.stderr
        assert "kind must be one of webdav, s3, imap, rclone" in done.stderr

    async def test_sync_of_a_source_that_cannot_open_is_one_line_and_exit_2(
        self, tmp_path: Path
    ) -> None:
        (tmp_path / "sources.toml").write_text(SOURCES)
        env = bare_env(SOURCES_FILE=str(tmp_path / "sources.toml"), DATA_DIR=str(tmp_path / "d"))
        done = await run_python("-m", "bot", "sources", "sync", "nextcloud", env=env, cwd=tmp_path)
        assert done.returncode == 2, done.stdout + done.stderr
        (line,) = done.stderr.splitlines()
        assert line.startswith("source 'nextcloud': ")
        assert "Traceback" not in done.stderr

    async def test_an_unknown_name_is_refused(self, tmp_path: Path) -> None:
        (tmp_path / "sources.toml").write_text(SOURCES)
        env = bare_env(SOURCES_FILE=str(tmp_path / "sources.toml"), DATA_DIR=str(tmp_path / "d"))
        done = await run_python("-m", "bot", "sources", "check", "nope", env=env, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.strip() == (
            "no source is named 'nope' in SOURCES_FILE (there are: nextcloud, contracts)"
        )

    async def test_the_bot_does_not_start_with_a_source_it_cannot_open(
        self, tmp_path: Path
    ) -> None:
        (tmp_path / "sources.toml").write_text(SOURCES)
        (tmp_path / "docs").mkdir()
        env = bare_env(
            SOURCES_FILE=str(tmp_path / "sources.toml"),
            DATA_DIR=str(tmp_path / "d"),
            SANDBOX_DIR=str(tmp_path / "docs"),
            BOT_TOKEN=BOT_TOKEN,
            OPENAI_API_KEY="sk-test-key-not-used-1234",
            TELEGRAM_API_BASE="http://127.0.0.1:9",
        )
        done = await run_python("-m", "bot", "run", env=env, cwd=tmp_path)
        assert done.returncode == 2, done.stdout + done.stderr
        output = done.stdout + done.stderr
        assert "source 'nextcloud': " in output
        assert "Traceback" not in output

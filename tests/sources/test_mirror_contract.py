"""The whole way from a real server to an answer, for every kind: within one pass, the folder,
the search index and a question's answer follow what changed at the source.

Each test runs against every kind's real server (the `remote` fixture). The bot's own parts
are real: a sources file written for that server and read by `load_sources`, the credentials
read from the environment, the kind opened by the registry, `Sources` running the pass with
the trash and the SQLite audit log, a `Toolbox` over the documents folder whose index only the
pass refreshes (its watcher is idle), and the agent asking the fake model server, whose model
searches, reads the first file found and quotes the line holding what was asked.

A scenario a kind cannot play (its `Abilities`: a mail message cannot change in place) is
skipped with the reason.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.agent import Agent, AgentConfig, Answer, HistoryStore
from bot.documents.sources.command import sync_each
from bot.documents.sources.config import load_sources
from bot.documents.sources.mirror import PassOutcome
from bot.documents.sources.runner import Sources, SourceStatus
from bot.documents.trash import Trash
from bot.process import exit_codes
from bot.storage.audit.sqlite import SqliteAuditLog
from tests.fakes.fake_llm import FakeLLM, Reply, make_client, text_reply, tool_calls_reply
from tests.sources.servers.remote import Remote
from tools import Toolbox
from tools.config import ToolSettings

_ASKED = re.compile(r"«(.+?)»")


async def _reader(request: dict[str, Any]) -> Reply:
    """A model that searches for the «word» asked about, reads the first file found and
    answers by quoting the line that holds the word (or says nothing mentions it)."""
    messages = request["messages"]
    turn = max(i for i, m in enumerate(messages) if m["role"] == "user")
    asked = _ASKED.search(str(messages[turn]["content"]))
    assert asked is not None, "the question names no «word»"
    word = asked.group(1)
    results = [m for m in messages[turn + 1 :] if m["role"] == "tool"]
    if not results:
        return tool_calls_reply(("search_files", {"query": word}), id_prefix="call_search")
    last = json.loads(results[-1]["content"])
    if len(results) == 1:
        hits = last.get("results") or []
        if not hits:
            return text_reply(f"Nothing in the documents mentions {word}.")
        return tool_calls_reply(("read_file", {"path": hits[0]["path"]}), id_prefix="call_read")
    lines = [line.split("| ", 1)[1] for line in last["document"].splitlines() if word in line]
    return text_reply(f"> {lines[0]}\n\nSource: {last['path']}")


def _sources_file(remote: Remote, path: Path, *, wrong_credentials: bool = False) -> Path:
    """The sources file an admin would write for this server: one table, credentials by
    variable name only (a kind whose credentials live in its own file, as rclone's do, may
    name another remote for wrong ones)."""
    configured = remote.configured(wrong_credentials=wrong_credentials)
    table = configured.config.model_dump(mode="json", exclude_none=True)
    lines = ["[[source]]", *(f"{key} = {json.dumps(value)}" for key, value in table.items())]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


@dataclass
class Bot:
    """The parts of a running bot a source touches, over one test server."""

    remote: Remote
    root: Path
    data: Path
    sources_file: Path
    toolbox: Toolbox
    audit: SqliteAuditLog
    agent: Agent
    monkeypatch: pytest.MonkeyPatch
    sources: Sources = field(init=False)
    asked: list[SourceStatus] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sources = self.runner()

    def runner(self, *, wrong_credentials: bool = False) -> Sources:
        """`Sources` as the bot builds it: the file read, the credentials in the environment,
        the registry opening the kind (no opener given)."""
        for key, value in self.remote.configured(wrong_credentials=wrong_credentials).env.items():
            self.monkeypatch.setenv(key, value)
        _sources_file(self.remote, self.sources_file, wrong_credentials=wrong_credentials)
        runner = Sources(
            load_sources(self.sources_file),
            root=self.root,
            data=self.data / "sources",
            max_delete_percent=20,
            audit=self.audit,
            refresh=self.toolbox.refresh,
        )

        async def heard(status: SourceStatus) -> None:
            self.asked.append(status)

        runner.on_ask(heard)
        return runner

    @property
    def name(self) -> str:
        return self.sources.names[0]

    @property
    def folder(self) -> Path:
        return self.root / self.sources.configs[self.name].target

    async def sync(self) -> PassOutcome:
        outcome = await self.sources.sync(self.name)
        assert outcome is not None, "another process held the source's lock"
        return outcome

    def files(self) -> dict[str, bytes]:
        """Every file below the source's folder, hidden ones too, by relative path."""
        if not self.folder.exists():
            return {}
        return {
            p.relative_to(self.folder).as_posix(): p.read_bytes()
            for p in sorted(self.folder.rglob("*"))
            if p.is_file()
        }

    def placed(self, name: str, phrase: str) -> str:
        """Where the item put under `name` lies in the folder: at `name` where the kind keeps
        names, else the one file holding `phrase`."""
        if self.remote.abilities.paths:
            return name
        holding = [p for p, data in self.files().items() if phrase.encode() in data]
        assert len(holding) == 1, f"{len(holding)} files hold {phrase!r}"
        return holding[0]

    def rel(self, path: str) -> str:
        """`path` in the source's folder as the documents folder names it."""
        return f"{self.sources.configs[self.name].target}/{path}"

    async def found(self, word: str) -> list[str]:
        raw = (await self.toolbox.execute("search_files", {"query": word})).text
        return [str(r["path"]) for r in json.loads(raw).get("results") or []]

    async def ask(self, word: str) -> Answer:
        return await self.agent.ask(f"chat:{uuid.uuid4().hex}", f"What do we have on «{word}»?")

    def trashed(self) -> list[str]:
        return sorted(item.path for item in Trash(self.root).items())


@pytest.fixture
async def bot(
    remote: Remote, tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Bot]:
    root = (tmp_path / "sandbox").resolve()
    root.mkdir()
    data = tmp_path / "data"
    data.mkdir()
    settings = ToolSettings(sandbox_dir=root, data_dir=tmp_path / "tools")
    toolbox = Toolbox(settings, watch="rescan", watch_interval=3600)
    await toolbox.start()
    audit = SqliteAuditLog(data / "audit.sqlite3")
    history = await HistoryStore.open(data / "history.sqlite3")
    fake_llm.responder = _reader
    config = AgentConfig(
        model="test-model",
        context_window=32_000,
        max_output_tokens=1_000,
        max_rounds=4,
        stream="off",
        verify_quotes=True,
    )
    agent = Agent(config, make_client(fake_llm, timeout=10.0, max_retries=0), toolbox, history)
    made = Bot(
        remote,
        root,
        data,
        _sources_file(remote, tmp_path / "sources.toml"),
        toolbox,
        audit,
        agent,
        monkeypatch,
    )
    try:
        await toolbox.wait_ready()
        yield made
    finally:
        await made.sources.close()
        await toolbox.close()
        await history.close()
        await audit.close()


def _quoted(answer: Answer, line: str, path: str) -> None:
    """The answer quotes `line`, and the quote was checked against `path` as read."""
    assert answer.sources == (path,)
    assert [q.text for q in answer.quotes] == [line]
    assert answer.quotes[0].found
    assert answer.quotes[0].path == path


def _clean(text: str, remote: Remote) -> None:
    for secret in remote.secrets:
        assert secret not in text


async def test_an_item_added_at_the_source_is_placed_found_and_answered_from(bot: Bot) -> None:
    line = "Leave: the zorbulyantsia rule gives 28 calendar days."
    bot.remote.put("hr/leave.txt", f"Handbook\n{line}\n")

    outcome = await bot.sync()

    assert outcome.report.ok, outcome.report.error
    assert outcome.report.added == 1
    path = bot.placed("hr/leave.txt", "zorbulyantsia")
    if bot.remote.abilities.paths:
        assert bot.files() == {path: f"Handbook\n{line}\n".encode()}
    assert await bot.found("zorbulyantsia") == [bot.rel(path)]
    _quoted(await bot.ask("zorbulyantsia"), line, bot.rel(path))


async def test_an_item_changed_at_the_source_changes_the_folder_the_index_and_the_answer(
    bot: Bot,
) -> None:
    if not bot.remote.abilities.change:
        pytest.skip(f"{bot.remote.kind}: items cannot change in place")
    bot.remote.put("policy.txt", "Travel: the kvershtalnik allowance is 40 euros.\n")
    await bot.sync()
    assert await bot.found("kvershtalnik") == [bot.rel("policy.txt")]
    line = "Travel: the plomburitsa allowance is 55 euros a day, from March."
    bot.remote.put("policy.txt", line + "\n")

    outcome = await bot.sync()

    assert outcome.report.ok, outcome.report.error
    assert (outcome.report.changed, outcome.report.added) == (1, 0)
    assert bot.files() == {"policy.txt": (line + "\n").encode()}
    assert await bot.found("plomburitsa") == [bot.rel("policy.txt")]
    assert await bot.found("kvershtalnik") == []
    _quoted(await bot.ask("plomburitsa"), line, bot.rel("policy.txt"))
    assert (await bot.ask("kvershtalnik")).searches_found_nothing


async def test_an_item_renamed_at_the_source_is_moved_not_fetched_again(bot: Bot) -> None:
    if not bot.remote.abilities.rename:
        pytest.skip(f"{bot.remote.kind}: items cannot be renamed at the source")
    line = "The gravistolnya contract is signed for three years."
    bot.remote.put("drafts/contract.txt", line + "\n")
    await bot.sync()
    inode = (bot.folder / "drafts/contract.txt").stat().st_ino
    bot.remote.rename("drafts/contract.txt", "signed/contract-2026.txt")

    outcome = await bot.sync()

    assert outcome.report.ok, outcome.report.error
    report = outcome.report
    assert (report.moved, report.added, report.changed, report.removed) == (1, 0, 0, 0)
    assert bot.files() == {"signed/contract-2026.txt": (line + "\n").encode()}
    assert (bot.folder / "signed/contract-2026.txt").stat().st_ino == inode, "fetched again"
    assert not (bot.folder / "drafts").exists()
    assert await bot.found("gravistolnya") == [bot.rel("signed/contract-2026.txt")]
    _quoted(await bot.ask("gravistolnya"), line, bot.rel("signed/contract-2026.txt"))
    assert bot.trashed() == []


async def test_an_item_deleted_at_the_source_goes_to_the_trash_audited_and_unanswered(
    bot: Bot,
) -> None:
    for index in range(9):
        bot.remote.put(f"keep/note{index}.txt", f"an ordinary note {index}\n")
    text = "The trombulyator procedure is withdrawn.\n"
    bot.remote.put("gone.txt", text)
    await bot.sync()
    path = bot.placed("gone.txt", "trombulyator")
    assert await bot.found("trombulyator") == [bot.rel(path)]
    bot.remote.delete("gone.txt")

    outcome = await bot.sync()

    assert outcome.report.ok, outcome.report.error
    assert outcome.report.removed == 1
    assert path not in bot.files()
    assert len(bot.files()) == 9
    assert bot.trashed() == [bot.rel(path)]
    assert await bot.found("trombulyator") == []
    answer = await bot.ask("trombulyator")
    assert answer.searches_found_nothing
    assert answer.sources == ()
    deletions = [e for e in await bot.audit.recent() if e.action == "delete"]
    assert [(e.subject, e.actor_id, e.actor_name) for e in deletions] == [
        (bot.rel(path), None, f"source:{bot.name}")
    ]
    trash = Trash(bot.root)
    (item,) = trash.items()
    trash.restore(item, bot.root / "restored" / "gone.txt")
    restored = (bot.root / "restored" / "gone.txt").read_bytes()
    assert b"trombulyator" in restored
    if bot.remote.abilities.paths:
        assert restored == text.encode()


async def test_a_server_dying_mid_listing_deletes_and_changes_nothing_and_says_so(
    bot: Bot, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    for index in range(10):
        bot.remote.put(f"folder-{index % 3}/file-{index:02}.txt", f"file-{index:02} text\n")
    first = await bot.sync()
    assert first.report.ok, first.report.error
    doomed = bot.placed("folder-0/file-00.txt", "file-00 text")
    before = bot.remote.served()
    quiet = await bot.sync()
    assert quiet.report.unchanged == 10
    whole = bot.remote.served() - before
    held = bot.files()
    bot.remote.delete("folder-0/file-00.txt")
    if bot.remote.abilities.change:
        bot.remote.put("folder-1/file-01.txt", "file-01 text, changed since\n")
    bot.remote.cut_after(whole // 2)
    capsys.readouterr()

    code = await sync_each(bot.sources, [bot.name])

    out, err = capsys.readouterr()
    assert code == exit_codes.TRY_AGAIN
    assert bot.files() == held
    assert bot.trashed() == []
    (line,) = err.splitlines()
    assert line.startswith(f"{bot.name}: the listing failed (")
    assert line.endswith("nothing was deleted")
    status = await bot.sources.status(bot.name)
    assert status.last is not None and not status.last.ok
    assert status.last.problem in ("unreachable", "timeout", "broken")
    assert f"{bot.name}: {status.last.error}" == line
    assert status.last_success == quiet.report.at
    _clean(out + err + caplog.text, bot.remote)
    _clean((bot.data / "sources" / f"{bot.name}.json").read_text(), bot.remote)

    bot.remote.cut_after(None)
    healed = await bot.sync()

    assert healed.report.ok, healed.report.error
    assert healed.report.removed == 1
    assert doomed not in bot.files()
    assert bot.trashed() == [bot.rel(doomed)]
    assert (await bot.sources.status(bot.name)).last_success == healed.report.at


async def test_wrong_credentials_are_one_clear_line_and_delete_nothing(
    bot: Bot, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    for index in range(5):
        bot.remote.put(f"f{index}.txt", f"text {index}\n")
    assert (await bot.sync()).report.ok
    held = bot.files()
    bot.remote.delete("f0.txt")
    await bot.sources.close()
    bot.sources = bot.runner(wrong_credentials=True)
    capsys.readouterr()

    code = await sync_each(bot.sources, [bot.name])

    out, err = capsys.readouterr()
    assert code == exit_codes.TRY_AGAIN
    assert bot.files() == held
    assert bot.trashed() == []
    (line,) = err.splitlines()
    status = await bot.sources.status(bot.name)
    assert status.last is not None
    assert status.last.problem == "auth"
    assert line == f"{bot.name}: {status.last.error}"
    assert line.startswith(f"{bot.name}: the listing failed (auth): ")
    _clean(out + err + caplog.text, bot.remote)


async def test_thirty_percent_deleted_at_once_stops_and_asks_then_a_confirmation_deletes_them(
    bot: Bot,
) -> None:
    for index in range(10):
        bot.remote.put(f"docs/file{index:02d}.txt", f"document number {index:02d} ends\n")
    assert (await bot.sync()).report.ok
    held = bot.files()
    paths = {bot.placed(f"docs/file{i:02d}.txt", f"number {i:02d} ends") for i in range(3)}
    for index in range(3):
        bot.remote.delete(f"docs/file{index:02d}.txt")

    stopped = await bot.sync()

    assert stopped.report.problem == "guard"
    assert stopped.report.removed == 0
    assert stopped.pending is not None
    assert (stopped.pending.count, stopped.pending.total) == (3, 10)
    assert set(stopped.pending.paths) == paths
    assert bot.files() == held
    assert bot.trashed() == []
    assert [s.pending for s in bot.asked] == [stopped.pending]
    again = await bot.sync()
    assert again.report.removed == 0 and not again.asked
    assert len(bot.asked) == 1

    assert await bot.sources.confirm(bot.name, stopped.pending.token) == "confirmed"
    done = await bot.sync()

    assert done.report.ok, done.report.error
    assert done.report.removed == 3
    assert bot.trashed() == sorted(bot.rel(p) for p in paths)
    assert set(bot.files()) == set(held) - paths
    assert (await bot.sources.status(bot.name)).pending is None


async def test_a_server_dying_mid_download_leaves_the_old_version_and_no_partial_file(
    bot: Bot,
) -> None:
    if not bot.remote.abilities.change:
        pytest.skip(f"{bot.remote.kind}: items cannot change in place")
    bot.remote.put("big.txt", "the old version\n")
    assert (await bot.sync()).report.ok
    before = bot.remote.served()
    await bot.sync()
    listing = bot.remote.served() - before
    new = "the new version\n" + "x" * 400_000
    bot.remote.put("big.txt", new)
    bot.remote.cut_after(listing + 100_000)

    cut = await bot.sync()

    assert cut.report.problem == "fetch"
    assert cut.report.error is not None and "big.txt" in cut.report.error
    _clean(cut.report.error, bot.remote)
    assert bot.files() == {"big.txt": b"the old version\n"}
    bot.remote.cut_after(None)
    healed = await bot.sync()
    assert healed.report.ok, healed.report.error
    assert healed.report.changed == 1
    assert bot.files() == {"big.txt": new.encode()}

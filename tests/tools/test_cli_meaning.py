"""`python -m tools` with EMBEDDING_MODEL set: the bot's search by meaning from the terminal.

The command line runs as a process of its own against the fake model server's `/embeddings`
over HTTP, as an admin runs it. `reindex` builds the vectors (only text the cache lacks, so an
interrupted build continues), `search` prints what the bot's `search_files` returns for the
same query, and beside a running bot the command line builds nothing.
"""

from __future__ import annotations

import asyncio
import io
import json
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.services import embeddings_config
from bot.settings.model import Settings
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.processes import REPO, Finished, bare_env, run_python, start_python
from tests.tools.vectors.test_vector_search import DOCUMENTS, concept_encoder
from tools import Toolbox
from tools.config import TerminalSettings, ToolSettings
from tools.vectors.embeddings import EmbeddingsConfig
from tools.vectors.progress import ProgressLines
from tools.vectors.state import STORE_FOLDER, VectorStatus

MODEL = "fake-embed"
KEY = "embed-key"


class Folder:
    """A documents folder, its DATA_DIR and the environment that points the CLI at them and
    at the fake embeddings server."""

    def __init__(self, tmp_path: Path, server: FakeLLM) -> None:
        self.cwd = tmp_path
        self.root = tmp_path / "docs"
        self.data = tmp_path / "data"
        self.server = server
        for rel, text in DOCUMENTS.items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text, encoding="utf-8")

    def env(self, **extra: str) -> dict[str, str]:
        settings = {
            "SANDBOX_DIR": str(self.root),
            "DATA_DIR": str(self.data),
            "EMBEDDING_MODEL": MODEL,
            "EMBEDDING_BASE_URL": self.server.base_url,
            "EMBEDDING_API_KEY": KEY,
        }
        return bare_env(**{**settings, **extra})

    async def cli(self, *args: str, **env: str) -> Finished:
        return await run_python("-m", "tools", *args, env=self.env(**env), cwd=self.cwd)

    def bots_toolbox(self) -> Toolbox:
        """The toolbox a bot with the same settings opens."""
        embeddings = EmbeddingsConfig(model=MODEL, base_url=self.server.base_url, api_key=KEY)
        settings = ToolSettings(sandbox_dir=self.root, data_dir=self.data)
        return Toolbox(settings, watch_interval=0.05, embeddings=embeddings)


@pytest.fixture
async def folder(tmp_path: Path, fake_llm: FakeLLM) -> Folder:
    fake_llm.embeddings.encoder = concept_encoder
    return Folder(tmp_path, fake_llm)


def parse(out: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(out)
    return result


class TestReindex:
    async def test_builds_the_vectors_with_progress(self, folder: Folder) -> None:
        done = await folder.cli("reindex")
        assert done.returncode == 0, done.stderr
        vectors = parse(done.stdout)["vectors"]
        assert vectors["passages"] == len(DOCUMENTS)
        assert vectors["embeddings_calls"] >= 1
        assert "vectors: " in done.stderr
        assert len(folder.server.embeddings.inputs) == len(DOCUMENTS)
        assert folder.server.embeddings.embedded("уничтожаются") == 1
        assert (folder.data / STORE_FOLDER).is_dir()

    async def test_a_rerun_sends_nothing_for_unchanged_files(self, folder: Folder) -> None:
        first = await folder.cli("reindex")
        assert first.returncode == 0, first.stderr
        calls = folder.server.embeddings.calls
        again = await folder.cli("reindex")
        assert again.returncode == 0, again.stderr
        assert folder.server.embeddings.calls == calls
        assert parse(again.stdout)["vectors"]["embeddings_calls"] == 0
        assert parse(again.stdout)["vectors"]["passages"] == len(DOCUMENTS)

    async def test_an_interrupted_build_continues_where_it_stopped(self, folder: Folder) -> None:
        many = folder.root / "записки"
        many.mkdir()
        for n in range(100):  # four steps of 32 documents, one embeddings call each
            (many / f"{n:03}.txt").write_text(f"Записка номер {n} о разном.", encoding="utf-8")
        embeddings = folder.server.embeddings
        embeddings.hold_after(1)
        process = await start_python("-m", "tools", "reindex", env=folder.env(), cwd=folder.cwd)
        try:
            await asyncio.wait_for(embeddings.held.wait(), 60)
            process.send_signal(signal.SIGINT)  # Ctrl-C while the second call waits
            embeddings.release()
            _, err = await asyncio.wait_for(process.communicate(), 60)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        assert process.returncode == 130
        assert "python -m tools reindex again to continue" in err.decode()
        first = list(embeddings.inputs)
        assert 0 < len(first) < len(DOCUMENTS) + 100

        again = await folder.cli("reindex")
        assert again.returncode == 0, again.stderr
        rest = embeddings.inputs[len(first) :]
        assert not set(first) & set(rest)
        assert len(first) + len(rest) == len(DOCUMENTS) + 100
        assert parse(again.stdout)["vectors"]["passages"] == len(DOCUMENTS) + 100

    async def test_a_failing_server_is_an_error_that_says_how_to_continue(
        self, folder: Folder
    ) -> None:
        folder.server.embeddings.fail_next(401, times=10)
        done = await folder.cli("reindex")
        assert done.returncode == 1
        vectors = parse(done.stdout)["vectors"]
        assert vectors["error"] == "HTTP 401 from the embeddings server"
        assert "again to continue" in vectors["hint"]
        assert KEY not in done.stdout + done.stderr


class TestSearch:
    async def test_prints_what_the_bots_search_files_returns(self, folder: Folder) -> None:
        built = await folder.cli("reindex")
        assert built.returncode == 0, built.stderr
        embedded = len(folder.server.embeddings.inputs)
        bot = folder.bots_toolbox()
        await bot.start()
        printed: dict[str, dict[str, Any]] = {}
        try:
            await asyncio.wait_for(bot.wait_ready(), 30)
            await asyncio.wait_for(bot.wait_vectors(), 30)
            for query in ("шредер", "отгулы"):
                done = await folder.cli("search", query)
                assert done.returncode == 0, done.stderr
                result = await bot.execute("search_files", {"query": query})
                printed[query] = parse(done.stdout)
                assert printed[query] == json.loads(result.text), query
        finally:
            await bot.close()
        asked = set(folder.server.embeddings.inputs[embedded:])
        assert asked == {"шредер", "отгулы"}  # the queries; no passage embedded again
        by_meaning = printed["шредер"]["results"][0]  # no word of it is in the file
        assert (by_meaning["path"], by_meaning["found_by"]) == ("правила/архив.txt", ["meaning"])
        both = printed["отгулы"]["results"][0]
        assert (both["path"], both["found_by"]) == ("правила/отдых.txt", ["words", "meaning"])

    async def test_says_which_sides_it_searched(self, folder: Folder) -> None:
        await folder.cli("reindex")
        done = await folder.cli("search", "шредер")
        n = len(DOCUMENTS)
        assert f"search by words and meaning: {n} of {n} documents have vectors" in done.stderr
        words = await folder.cli("search", "шредер", EMBEDDING_MODEL="")
        assert "search by words only: EMBEDDING_MODEL is empty" in words.stderr
        assert not parse(words.stdout)["results"]

    async def test_without_vectors_it_searches_by_words_and_writes_nothing(
        self, folder: Folder
    ) -> None:
        done = await folder.cli("search", "отдых")
        assert done.returncode == 0, done.stderr
        assert "no vectors in DATA_DIR yet" in done.stderr
        assert parse(done.stdout)["results"][0]["path"] == "правила/отдых.txt"
        assert not folder.data.exists()
        assert folder.server.embeddings.calls == 0


class TestBesideARunningBot:
    async def test_reindex_builds_nothing_and_says_the_bot_does(self, folder: Folder) -> None:
        settings = ToolSettings(sandbox_dir=folder.root, data_dir=folder.data)
        bot = Toolbox(settings, watch_interval=0.05)  # holds the writer lock
        await bot.start()
        try:
            await asyncio.wait_for(bot.wait_ready(), 30)
            done = await folder.cli("reindex")
        finally:
            await bot.close()
        assert done.returncode == 0, done.stderr
        out = parse(done.stdout)
        assert out["rebuilt_by"] == "the running bot"
        assert "nothing is embedded here" in out["vectors"]
        assert folder.server.embeddings.calls == 0
        assert not (folder.data / STORE_FOLDER).exists()


class TestSettings:
    def test_the_embeddings_are_the_bots(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        (tmp_path / "docs").mkdir()
        monkeypatch.chdir(tmp_path)
        (tmp_path / ".env").write_text(
            "SANDBOX_DIR=docs\nEMBEDDING_MODEL= e5 \nOPENAI_BASE_URL=http://127.0.0.1:9/v1/\n"
            "OPENAI_API_KEY=local\nEMBEDDING_BASE_URL=\n",
            encoding="utf-8",
        )
        terminal = TerminalSettings().embeddings()
        assert terminal is not None
        assert terminal == embeddings_config(Settings())
        assert (terminal.model, terminal.base_url) == ("e5", "http://127.0.0.1:9/v1")

    def test_help_names_the_meaning_side(self) -> None:
        import subprocess  # noqa: PLC0415

        done = subprocess.run(
            [sys.executable, "-m", "tools", "reindex", "--help"],
            cwd=REPO, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert "EMBEDDING_MODEL" in done.stdout
        assert "interrupted build continues" in " ".join(done.stdout.split())


class TestProgress:
    def test_a_line_at_most_every_interval(self) -> None:
        out = io.StringIO()
        now = [0.0]
        lines = ProgressLines(out, every_s=2.0, clock=lambda: now[0])
        for done, at in ((32, 0.0), (64, 1.0), (96, 2.5)):
            now[0] = at
            lines(VectorStatus(configured=True, passages_done=done, passages_total=2_100))
        assert out.getvalue().splitlines() == [
            "vectors: 32 of about 2,100 passages (1 %)",
            "vectors: 96 of about 2,100 passages (4 %)",
        ]

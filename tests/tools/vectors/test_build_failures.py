"""The vector build against an embeddings server that fails every look: said once, asked less
and less often, back to normal when it answers again.

The real build loop runs in its thread over a real keyword index and the fake server's
`/embeddings`; only its wait between looks is stood in for (`Turns`), so a test lets it make
looks one after another and reads how long it would have waited, with no sleeping.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes.fake_llm import FakeLLM
from tools import Toolbox
from tools.config import ToolSettings
from tools.vectors.builder import VectorBuilder
from tools.vectors.cache import SqliteEmbeddingCache
from tools.vectors.embeddings import PER_TOKEN, EmbeddingsConfig
from tools.vectors.store import VectorStore

INTERVAL_S = 2.0
DOCUMENTS = {
    "hr/leave.txt": "Leave is granted on request, twenty eight days a year.",
    "hr/trips.txt": "Business trips: the hotel is paid by receipt.",
    "office/paper.txt": "Paper with personal data is shredded each quarter.",
}


class Turns:
    """Stands in for the builder's wait between looks: records the seconds it asks for and
    holds it there until the test lets it make its next look."""

    def __init__(self) -> None:
        self.waits: list[float] = []
        self._changed = threading.Condition()
        self._let_through = 0
        self._open = False

    def __call__(self, wake: threading.Event, seconds: float) -> None:
        with self._changed:
            self.waits.append(seconds)
            self._changed.notify_all()
            self._changed.wait_for(lambda: self._open or self._let_through >= len(self.waits))

    async def after_looks(self, looks: int) -> list[float]:
        """Let the builder look until it has made `looks` looks in all; the waits it asked
        for after each."""
        with self._changed:
            self._let_through = looks - 1
            self._changed.notify_all()

        def waited() -> list[float]:
            with self._changed:
                assert self._changed.wait_for(lambda: len(self.waits) >= looks, timeout=30)
                return self.waits[:looks]

        return await asyncio.to_thread(waited)

    def open(self) -> None:
        """Stop holding the builder (so that it can stop)."""
        with self._changed:
            self._open = True
            self._changed.notify_all()


class Build:
    """A started builder over a ready keyword index, and its stand-in clock."""

    def __init__(self, builder: VectorBuilder, turns: Turns) -> None:
        self.builder = builder
        self.turns = turns


@pytest.fixture
async def build(tmp_path: Path, fake_llm: FakeLLM) -> AsyncIterator[Build]:
    docs, data = tmp_path / "docs", tmp_path / "data"
    for rel, text in DOCUMENTS.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    box = Toolbox(ToolSettings(sandbox_dir=docs, data_dir=data), watch_interval=0.05)
    await box.start()
    cache = SqliteEmbeddingCache(data / "vectors.sqlite3")
    store = VectorStore(data / "vectors.index")
    turns = Turns()
    config = EmbeddingsConfig(
        model="fake-embed", base_url=fake_llm.base_url, api_key="embed-key", calls_per_second=1e3
    )
    builder = VectorBuilder(box.indexer, store, cache, config, interval=INTERVAL_S, pause=turns)
    try:
        await asyncio.wait_for(box.wait_ready(), 30)
        builder.start()
        yield Build(builder, turns)
    finally:
        turns.open()
        await asyncio.to_thread(builder.stop)
        store.close()
        cache.close()
        await box.close()


def _lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("tools.vectors")]


class TestAServerThatKeepsFailing:
    async def test_one_vector_per_token_is_said_once_and_asked_less_and_less_often(
        self, build: Build, fake_llm: FakeLLM, caplog: pytest.LogCaptureFixture
    ) -> None:
        caplog.set_level(logging.INFO)
        fake_llm.embeddings.per_token = True
        waits = await build.turns.after_looks(9)
        assert waits == [5, 10, 20, 40, 80, 160, 320, 600, 600]
        assert fake_llm.embeddings.calls == 9, "one request a look, none retried at once"
        (line,) = _lines(caplog)
        assert line.levelno == logging.WARNING
        assert line.exc_info is None
        assert line.getMessage() == (
            f"vectors: {PER_TOKEN}; trying again in 5 s, less and less often while it fails"
        )
        assert build.builder.status().last_error == PER_TOKEN

    async def test_an_answer_brings_the_interval_back(
        self, build: Build, fake_llm: FakeLLM, caplog: pytest.LogCaptureFixture
    ) -> None:
        caplog.set_level(logging.INFO)
        fake_llm.embeddings.per_token = True
        assert await build.turns.after_looks(3) == [5, 10, 20]
        fake_llm.embeddings.per_token = False
        waits = await build.turns.after_looks(5)
        assert waits[3:] == [INTERVAL_S, INTERVAL_S]
        assert build.builder.status().last_error is None
        assert build.builder.status().passages_done == len(DOCUMENTS)
        assert [r.getMessage() for r in _lines(caplog)][-2:] == [
            f"vectors: {len(DOCUMENTS)} passages of {len(DOCUMENTS)} documents",
            "vectors: the build works again",
        ]

    async def test_a_new_reason_is_said_and_the_wait_starts_again_after_a_success(
        self, build: Build, fake_llm: FakeLLM, caplog: pytest.LogCaptureFixture
    ) -> None:
        fake_llm.embeddings.per_token = True
        assert await build.turns.after_looks(2) == [5, 10]
        fake_llm.embeddings.fail_next(401, times=2)
        assert (await build.turns.after_looks(4))[2:] == [20, 40]
        warnings = [r.getMessage() for r in _lines(caplog) if r.levelno == logging.WARNING]
        assert len(warnings) == 2
        assert "HTTP 401 from the embeddings server" in warnings[1]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

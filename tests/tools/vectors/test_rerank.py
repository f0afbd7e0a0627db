"""Reranking through the real search_files, against a fake rerank server on 127.0.0.1.

The fake's scorer here reverses whatever order it is sent, so a reranked search is told from a
fused one by its order alone; every failure must leave the fused order and still answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from bot.agent.breaker import Breaker
from tests.fakes.clock import FakeClock
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fake_reranker import FakeReranker
from tests.fakes.http_server import serving
from tests.fakes.ports import free_port
from tools import Toolbox
from tools.config import ToolSettings
from tools.vectors.embeddings import EmbeddingsConfig
from tools.vectors.rerank import RerankConfig, Reranker, rerank_text

KEY = "rr-secret-key-4711"
DOCUMENTS = {
    "отпуск/правила.md": "# Отпуск\n\nОтпуск отпуск отпуск: двадцать восемь дней.",
    "отпуск/заявление.txt": "Заявление на отпуск пишут за две недели.",
    "кадры/графики.txt": "График: отпуск по очереди, летом.",
    "кадры/приказ.txt": "Приказ об отпуске подписывает директор, отпуск оплачивают.",
}


def reversing(_: str, texts: list[str]) -> list[float]:
    """Scores that put the last text sent first."""
    return [float(i) for i in range(len(texts))]


@pytest.fixture
def reranker(reranker: FakeReranker) -> FakeReranker:
    """The shared fake, scoring so that the last text sent comes first."""
    reranker.scorer = reversing
    return reranker


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    for rel, text in DOCUMENTS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


class Boxes:
    def __init__(self, root: Path, data: Path) -> None:
        self.root = root
        self.data = data
        self.running: list[Toolbox] = []

    async def start(
        self, rerank: RerankConfig | None, embeddings: EmbeddingsConfig | None = None
    ) -> Toolbox:
        settings = ToolSettings(sandbox_dir=self.root, data_dir=self.data)
        box = Toolbox(
            settings, watch_interval=0.05, rerank=rerank, embeddings=embeddings, vector_interval=60
        )
        self.running.append(box)
        await box.start()
        await asyncio.wait_for(box.wait_ready(), 30)
        if embeddings is not None:
            await asyncio.wait_for(box.wait_vectors(), 30)
        return box


@pytest.fixture
async def boxes(docs: Path, tmp_path: Path) -> AsyncIterator[Boxes]:
    made = Boxes(docs, tmp_path / "data")
    try:
        yield made
    finally:
        for box in made.running:
            await box.close()


async def _search(box: Toolbox, query: str = "отпуск", limit: int = 3) -> dict[str, Any]:
    result = await box.execute("search_files", {"query": query, "limit": limit})
    found: dict[str, Any] = json.loads(result.text)
    return found


def _paths(found: dict[str, Any]) -> list[str]:
    return [r["path"] for r in found["results"]]


async def _fused_order(boxes: Boxes, limit: int = 30) -> list[str]:
    """The order the search gives without a reranker."""
    box = await boxes.start(None)
    try:
        return _paths(await _search(box, limit=limit))
    finally:
        boxes.running.remove(box)
        await box.close()


def _config(url: str, **more: Any) -> RerankConfig:
    return RerankConfig(url=url, model="bge-reranker-v2-m3", api_key=KEY, **more)


class TestOrder:
    async def test_the_documents_dialect_reorders_the_candidates_and_sends_top_n(
        self, boxes: Boxes, reranker: FakeReranker
    ) -> None:
        fused = await _fused_order(boxes)
        assert len(fused) == 4
        box = await boxes.start(_config(reranker.jina_url))
        found = await _search(box, limit=2)
        assert _paths(found) == fused[::-1][:2]
        assert found["reranked"] is True
        assert found["total"] == 4 and found["truncated"] is True
        (request,) = reranker.requests
        body = request["body"]
        assert request["path"] == "/v1/rerank" and request["auth"] == f"Bearer {KEY}"
        assert body["model"] == "bge-reranker-v2-m3" and body["query"] == "отпуск"
        assert body["top_n"] == 2, "only the results the model gets are asked for"
        assert [d.split("\n")[0] for d in body["documents"]] == fused
        assert "texts" not in body

    async def test_tei_is_sent_texts_and_its_whole_ranking_is_cut_to_the_limit(
        self, boxes: Boxes, reranker: FakeReranker
    ) -> None:
        fused = await _fused_order(boxes)
        box = await boxes.start(_config(reranker.tei_url))
        found = await _search(box, limit=3)
        assert _paths(found) == fused[::-1][:3]
        assert found["reranked"] is True
        (request,) = reranker.requests
        assert request["path"] == "/rerank"
        assert [t.split("\n")[0] for t in request["body"]["texts"]] == fused
        assert "documents" not in request["body"]

    async def test_top_n_asks_no_more_than_was_sent(
        self, boxes: Boxes, reranker: FakeReranker
    ) -> None:
        box = await boxes.start(_config(reranker.jina_url))
        found = await _search(box, limit=10)
        assert len(found["results"]) == 4 and found["truncated"] is False
        assert reranker.requests[0]["body"]["top_n"] == 4

    async def test_a_passage_is_scored_with_its_place(
        self, boxes: Boxes, reranker: FakeReranker
    ) -> None:
        box = await boxes.start(_config(reranker.jina_url))
        await _search(box)
        sent = reranker.requests[0]["body"]["documents"]
        (text,) = [d for d in sent if d.startswith("отпуск/правила.md")]
        assert "§ Отпуск: " in text

    async def test_a_search_for_one_result_is_still_reranked_from_all_candidates(
        self, boxes: Boxes, reranker: FakeReranker
    ) -> None:
        fused = await _fused_order(boxes)
        box = await boxes.start(_config(reranker.jina_url, candidates=3))
        found = await _search(box, limit=1)
        assert _paths(found) == [fused[2]], "the third candidate, reversed to the front"
        assert len(reranker.requests[0]["body"]["documents"]) == 3


class TestFailure:
    async def test_an_index_out_of_range_is_refused_and_the_fused_order_kept(
        self, boxes: Boxes, reranker: FakeReranker
    ) -> None:
        fused = await _fused_order(boxes)
        reranker.out_of_range = True
        box = await boxes.start(_config(reranker.jina_url))
        found = await _search(box, limit=3)
        assert _paths(found) == fused[:3]
        assert "reranked" not in found
        assert box.reranker is not None and box.reranker.counts["bad_reply"] == 1

    async def test_a_slow_server_costs_the_timeout_then_the_fused_order(
        self, boxes: Boxes, reranker: FakeReranker
    ) -> None:
        fused = await _fused_order(boxes)
        reranker.delay_s = 30.0
        box = await boxes.start(_config(reranker.jina_url, timeout_s=0.3))
        started = time.perf_counter()
        found = await _search(box, limit=3)
        assert time.perf_counter() - started < 3.0
        assert _paths(found) == fused[:3]
        assert box.reranker is not None and box.reranker.counts["timeout"] == 1

    async def test_a_dead_server_opens_the_breaker_until_the_cool_down_ends(
        self,
        boxes: Boxes,
        reranker: FakeReranker,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        fused = await _fused_order(boxes)
        clock = FakeClock()
        breaker = Breaker("reranker", 60.0, clock)
        dead = f"http://127.0.0.1:{free_port()}/v1/rerank"
        box = await boxes.start(_config(dead, gate=breaker))
        caplog.set_level(logging.DEBUG, logger="tools.vectors.rerank")
        assert _paths(await _search(box)) == fused[:3]
        assert breaker.state().open is True
        reranker_ = box.reranker
        assert reranker_ is not None
        calls = reranker_.calls
        for _ in range(3):
            assert _paths(await _search(box)) == fused[:3]
        assert reranker_.calls == calls, "no request while the breaker is open"
        assert reranker_.counts["error"] == 1 and reranker_.counts["skipped"] == 3
        clock.advance(61.0)
        await _search(box)
        assert reranker_.calls == calls + 1, "one trial after the cool-down"
        warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1, "one line per outage, not one per search"
        assert KEY not in caplog.text

    async def test_an_outage_is_logged_once_and_its_end_once(
        self, boxes: Boxes, reranker: FakeReranker, caplog: pytest.LogCaptureFixture
    ) -> None:
        fused = await _fused_order(boxes)
        reranker.fail_next(503, times=3)
        box = await boxes.start(_config(reranker.jina_url))
        caplog.set_level(logging.INFO, logger="tools.vectors.rerank")
        for _ in range(3):
            found = await _search(box)
            assert _paths(found) == fused[:3] and "reranked" not in found
        found = await _search(box)
        assert found["reranked"] is True
        levels = [r.levelno for r in caplog.records if r.name == "tools.vectors.rerank"]
        assert levels == [logging.WARNING, logging.INFO]
        assert "HTTP 503" in caplog.records[0].getMessage()
        assert box.reranker is not None
        assert box.reranker.counts == {
            "ok": 1,
            "error": 3,
            "timeout": 0,
            "bad_reply": 0,
            "skipped": 0,
        }


class TestFused:
    async def test_the_fused_candidates_of_both_sides_are_reranked(
        self, boxes: Boxes, reranker: FakeReranker, fake_llm: FakeLLM
    ) -> None:
        embeddings = EmbeddingsConfig(
            model="fake-embed", base_url=fake_llm.base_url, api_key="e", calls_per_second=1000
        )
        plain = await boxes.start(None, embeddings)
        fused = await _search(plain, limit=30)
        boxes.running.remove(plain)
        await plain.close()
        box = await boxes.start(_config(reranker.jina_url), embeddings)
        found = await _search(box, limit=3)
        assert _paths(found) == _paths(fused)[::-1][:3]
        assert all("found_by" in r for r in found["results"])
        assert found["reranked"] is True


class TestDialects:
    async def test_auto_on_a_bare_path_falls_back_to_documents_and_keeps_it(self) -> None:
        """Infinity and vLLM serve `/rerank` too, and refuse TEI's body."""
        bodies: list[dict[str, Any]] = []

        async def documents_only(request: web.Request) -> web.Response:
            body = await request.json()
            bodies.append(body)
            if "documents" not in body:
                return web.json_response({"detail": "documents: field required"}, status=422)
            return web.json_response(
                {
                    "results": [
                        {"index": 1, "relevance_score": 0.9},
                        {"index": 0, "relevance_score": 0.1},
                    ]
                }
            )

        async with serving(documents_only, path="/rerank", method="POST") as base:
            client = Reranker(RerankConfig(url=f"{base}/rerank"))
            try:
                assert await client.rank("q", ["a", "b"], top_n=2) == [1, 0]
                assert await client.rank("q", ["a", "b"], top_n=2) == [1, 0]
            finally:
                await client.close()
        assert ["texts" in b for b in bodies] == [True, False, False]

    def test_the_key_stays_out_of_the_config_repr(self) -> None:
        assert KEY not in repr(_config("http://127.0.0.1:1/rerank"))

    def test_a_result_s_text_names_its_path_place_and_words(self) -> None:
        result = {
            "path": "a/b.pdf",
            "snippets": [{"line": 3, "text": "Отпуск 28 дней", "place": "page 4"}],
        }
        assert rerank_text(result) == "a/b.pdf\npage 4: Отпуск 28 дней"

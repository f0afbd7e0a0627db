"""A rerank server on 127.0.0.1 speaking both dialects, with a pluggable scorer.

`POST /v1/rerank` answers as Jina, Cohere, vLLM and llama.cpp do (`{model, query, documents,
top_n}` -> `{"results": [{index, relevance_score}]}`, best first, `top_n` of them);
`POST /rerank` as Hugging Face TEI does (`{query, texts}` -> `[{index, score}]`, every text,
best first; a body without `texts` is refused with 422, as TEI refuses it). `scorer` gives each
text its score for the query; by default the share of the query's words (first five letters)
the text holds, so a text naming the query's words ranks first. Every request is recorded
(`requests`); `delay_s`, `out_of_range`, `fail_next` and `close()` make it misbehave the way
real servers do. The benchmark serves a real encoder's cosine through it (`scorer`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import deque
from collections.abc import Callable
from typing import Any

from aiohttp import web

Scorer = Callable[[str, list[str]], list[float]]
_WORD = re.compile(r"[^\W_]+")
STEM_CHARS = 5


def shared_words(query: str, texts: list[str]) -> list[float]:
    """Each text's share of the query's word stems (their first five letters)."""
    wanted = {w[:STEM_CHARS] for w in _WORD.findall(query.lower())}
    scores = []
    for text in texts:
        held = {w[:STEM_CHARS] for w in _WORD.findall(text.lower())}
        scores.append(len(wanted & held) / len(wanted) if wanted else 0.0)
    return scores


class FakeReranker:
    """The server, its script and its record."""

    def __init__(self, scorer: Scorer = shared_words) -> None:
        self.scorer = scorer
        self.requests: list[dict[str, Any]] = []
        """Every request's path, body and Authorization header, in order."""
        self.delay_s = 0.0
        """Wait this long before answering (a slow server)."""
        self.out_of_range = False
        """Rank a text that was never sent (index = the count of texts)."""
        self.base = ""
        """`http://127.0.0.1:PORT`."""
        self._failures: deque[int] = deque()
        self._closing = asyncio.Event()
        self._runner: web.AppRunner | None = None

    @property
    def jina_url(self) -> str:
        return f"{self.base}/v1/rerank"

    @property
    def tei_url(self) -> str:
        return f"{self.base}/rerank"

    def fail_next(self, status: int, times: int = 1) -> None:
        """Answer the next `times` requests with this HTTP status."""
        self._failures.extend([status] * times)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/rerank", self._jina)
        app.router.add_post("/rerank", self._tei)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.base = f"http://127.0.0.1:{self._runner.addresses[0][1]}"

    async def close(self) -> None:
        """Stop answering: the port refuses connections from now on (a dead server)."""
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _heard(self, request: web.Request) -> tuple[dict[str, Any], web.Response | None]:
        body: dict[str, Any] = await request.json()
        auth = request.headers.get("Authorization")
        self.requests.append({"path": request.path, "body": body, "auth": auth})
        if self.delay_s:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), self.delay_s)
        if self._failures:
            status = self._failures.popleft()
            return body, web.json_response({"error": f"fake error {status}"}, status=status)
        return body, None

    async def _ranks(self, query: str, texts: list[str]) -> list[tuple[int, float]]:
        scores = await asyncio.to_thread(self.scorer, query, texts)  # a real model is slow
        ranks = sorted(enumerate(scores), key=lambda pair: -pair[1])
        if self.out_of_range:
            ranks.insert(0, (len(texts), 1.0))
        return ranks

    async def _jina(self, request: web.Request) -> web.Response:
        body, failure = await self._heard(request)
        if failure is not None:
            return failure
        documents = [str(d) for d in body.get("documents") or []]
        ranks = await self._ranks(str(body.get("query", "")), documents)
        top_n = body.get("top_n")
        if isinstance(top_n, int):
            ranks = ranks[:top_n]
        results = [{"index": i, "relevance_score": score} for i, score in ranks]
        return web.json_response(
            {"model": body.get("model", ""), "results": results, "usage": {"total_tokens": 1}}
        )

    async def _tei(self, request: web.Request) -> web.Response:
        body, failure = await self._heard(request)
        if failure is not None:
            return failure
        if not isinstance(body.get("texts"), list):
            return web.json_response(
                {"error": "missing field `texts`", "error_type": "Validation"}, status=422
            )
        texts = [str(t) for t in body["texts"]]
        ranks = await self._ranks(str(body.get("query", "")), texts)
        return web.json_response([{"index": i, "score": score} for i, score in ranks])

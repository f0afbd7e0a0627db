"""The reranker: a cross-encoder endpoint that reorders a search's best candidates.

A search fuses its keyword and meaning sides first; the top `candidates` results then go to
the endpoint, one text each (`rerank_text`: the path, each snippet's place and words), and come
back in the reranker's order before the first `limit` go to the model. Two wire dialects
(`rerank_wire`) are spoken by one client.

Failure never costs an answer: a timeout (`timeout_s`), an HTTP error, a refused connection or
a reply that is not a ranking of the texts sent leaves the fused order as it was. Each outcome
is counted (`counts`, read by the bot's metrics); an outage is logged once when it begins and
once when it ends, not per search; and a `Gate` (the bot gives the model's circuit breaker) has
searches skip the endpoint for a cool-down after a failure, so an outage costs one timeout per
cool-down, not one per search. The API key is sent in a header and nowhere else: not in the
config's repr, a log line or an error's text.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from tools.vectors.rerank_wire import (
    REFUSED_BODY,
    Dialect,
    DialectSetting,
    RerankReplyError,
    dialects_to_try,
    read_ranking,
    request_body,
)

if TYPE_CHECKING:  # aiohttp's client loads with the first rerank, not with the settings
    import aiohttp
    from pydantic import SecretStr

log = logging.getLogger(__name__)
Outcome = Literal["ok", "timeout", "error", "bad_reply", "skipped"]
OUTCOMES: tuple[Outcome, ...] = ("ok", "timeout", "error", "bad_reply", "skipped")
"""How one rerank ended: reordered; no reply in time; an HTTP error or no connection; a reply
that was not a ranking; not asked (the gate was shut after a failure)."""
CANDIDATES = 30
TIMEOUT_S = 2.0
TEXT_CHARS = 1_000
"""One candidate's text is cut to this many characters: the snippets are short, and a long
text costs the cross-encoder time on every search."""


class Gate(Protocol):
    """A circuit breaker: whether to call now, and what the call's outcome was."""

    def allows(self) -> bool: ...

    def failed(self, kind: str) -> None: ...

    def succeeded(self) -> None: ...


@dataclass(frozen=True)
class RerankConfig:
    """Where and how candidates are reranked. `gate` None: every search asks the endpoint."""

    url: str
    model: str = ""
    api_key: str | None = field(default=None, repr=False)
    candidates: int = CANDIDATES
    timeout_s: float = TIMEOUT_S
    dialect: DialectSetting = "auto"
    gate: Gate | None = field(default=None, repr=False, compare=False)


class RerankSettings(Protocol):
    """The RERANK_* settings, as the bot's settings and the terminal tools' both hold them."""

    @property
    def rerank_url(self) -> str | None: ...

    @property
    def rerank_model(self) -> str: ...

    @property
    def rerank_api_key(self) -> SecretStr | None: ...

    @property
    def rerank_candidates(self) -> int: ...

    @property
    def rerank_timeout_s(self) -> float: ...

    @property
    def rerank_dialect(self) -> DialectSetting: ...


def configured_reranker(settings: RerankSettings, gate: Gate | None = None) -> RerankConfig | None:
    """Reranking as the RERANK_* settings ask for it, behind `gate` if given; None when
    RERANK_URL is empty."""
    if not settings.rerank_url:
        return None
    key = settings.rerank_api_key
    return RerankConfig(
        url=settings.rerank_url,
        model=settings.rerank_model,
        api_key=key.get_secret_value() if key is not None else None,
        candidates=settings.rerank_candidates,
        timeout_s=settings.rerank_timeout_s,
        dialect=settings.rerank_dialect,
        gate=gate,
    )


class RerankError(RuntimeError):
    """The endpoint gave no ranking; `outcome` says how it failed."""

    def __init__(self, message: str, outcome: Outcome) -> None:
        super().__init__(message)
        self.outcome: Outcome = outcome


def rerank_text(result: Mapping[str, Any]) -> str:
    """What the reranker reads of one search result: its path, then each snippet with its
    place ("§ 4.2 Отпуск, page 3: Сотрудник имеет право..."), cut to `TEXT_CHARS`. The one place
    this text is made, so what is scored is what the model is shown."""
    lines = [str(result.get("path", ""))]
    for snippet in result.get("snippets") or ():
        text = str(snippet.get("text", "")).strip()
        place = snippet.get("place")
        lines.append(f"{place}: {text}" if place else text)
    joined = "\n".join(line for line in lines if line)
    return joined[:TEXT_CHARS]


class Reranker:
    """One endpoint, its dialect once learnt, the gate, and the outcomes counted."""

    def __init__(self, config: RerankConfig) -> None:
        self.config = config
        self.counts: Counter[str] = Counter(dict.fromkeys(OUTCOMES, 0))
        """Reranks by outcome since start (`OUTCOMES`)."""
        self.calls = 0
        """Requests sent to the endpoint."""
        self.last_error: str | None = None
        """Why the last rerank failed (never the key); None once one succeeds."""
        self._dialects = dialects_to_try(config.url, config.dialect)
        self._session: aiohttp.ClientSession | None = None
        self._down = False

    @property
    def dialect(self) -> str:
        """The dialect sent first: the one the endpoint answered in, once it has."""
        return self._dialects[0]

    async def reorder(
        self, query: str, results: Sequence[dict[str, Any]], limit: int
    ) -> tuple[list[dict[str, Any]], bool]:
        """The first `limit` of `results` in the reranker's order of its first `candidates`,
        and whether it was reordered; on any failure the fused order, cut to `limit`."""
        head = list(results[: self.config.candidates])
        if len(head) < 2:
            return list(results[:limit]), False
        gate = self.config.gate
        if gate is not None and not gate.allows():
            self.counts["skipped"] += 1
            return list(results[:limit]), False
        try:
            order = await self.rank(
                query, [rerank_text(r) for r in head], top_n=min(limit, len(head))
            )
        except RerankError as exc:
            self._failed(exc, gate)
            return list(results[:limit]), False
        self.counts["ok"] += 1
        self.last_error = None
        if gate is not None:
            gate.succeeded()
        if self._down:
            self._down = False
            log.info("the reranker answers again; searches are reranked")
        ranked = [head[i] for i in order]
        chosen = set(order)
        ranked += [r for i, r in enumerate(head) if i not in chosen]  # not ranked: fused order
        ranked += list(results[len(head) :])
        return ranked[:limit], True

    def _failed(self, exc: RerankError, gate: Gate | None) -> None:
        self.counts[exc.outcome] += 1
        self.last_error = str(exc)
        if gate is not None:
            gate.failed(exc.outcome)
        if not self._down:
            self._down = True
            log.warning(
                "reranker unavailable: %s; searches keep the fused order until it answers", exc
            )
        else:
            log.debug("reranker still unavailable: %s", exc)

    async def rank(self, query: str, texts: Sequence[str], *, top_n: int) -> list[int]:
        """The indices of `texts`, best first, as the endpoint ranks them for `query`.

        Raises:
            RerankError: no reply within `timeout_s`, an HTTP error, or no ranking in the reply.
        """
        try:
            async with asyncio.timeout(self.config.timeout_s):
                return await self._rank(query, texts, top_n)
        except TimeoutError:
            msg = f"the reranker did not answer within {self.config.timeout_s:g} s"
            raise RerankError(msg, "timeout") from None

    async def _rank(self, query: str, texts: Sequence[str], top_n: int) -> list[int]:
        import aiohttp  # noqa: PLC0415 - see the imports

        for dialect in self._dialects:
            body = request_body(dialect, self.config.model, query, texts, top_n)
            self.calls += 1
            try:
                async with self._client().post(self.config.url, json=body) as response:
                    if response.status in REFUSED_BODY and dialect != self._dialects[-1]:
                        continue
                    if response.status >= 400:
                        msg = f"HTTP {response.status} from the reranker"
                        raise RerankError(msg, "error")
                    reply = await response.json(content_type=None)
            except aiohttp.ClientError as exc:
                msg = f"the reranker cannot be reached ({type(exc).__name__})"
                raise RerankError(msg, "error") from None
            except ValueError:  # not JSON
                raise RerankError("the reranker's reply is not JSON", "bad_reply") from None
            try:
                order = read_ranking(reply, len(texts))
            except RerankReplyError as exc:
                raise RerankError(str(exc), "bad_reply") from None
            self._learnt(dialect)
            return order
        raise RerankError("the reranker refused both dialects", "error")

    def _learnt(self, dialect: Dialect) -> None:
        """Keep sending the dialect the endpoint answered."""
        if len(self._dialects) > 1 and self._dialects[0] != dialect:
            log.info("the reranker at RERANK_URL takes the %s dialect", dialect)
        self._dialects = (dialect,)

    def _client(self) -> aiohttp.ClientSession:
        """One session for the process, made on the event loop at the first rerank."""
        import aiohttp  # noqa: PLC0415 - see the imports

        if self._session is None:
            headers = {"Content-Type": "application/json"}
            if self.config.api_key:
                headers["Authorization"] = f"Bearer {self.config.api_key}"
            self._session = aiohttp.ClientSession(headers=headers)
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

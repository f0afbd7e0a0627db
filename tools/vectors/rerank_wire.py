"""What a reranker is sent and what its reply means, in the two dialects servers speak.

- `documents` (Jina, Cohere, vLLM, Infinity, LocalAI, llama.cpp at `/v1/rerank`):
  `{model, query, documents, top_n}` -> `{"results": [{index, relevance_score}, ...]}`;
- `texts` (Hugging Face TEI at `/rerank`): `{query, texts}` -> `[{index, score}, ...]`.

The dialect to send is set (`jina`, `tei`) or, with `auto`, guessed from the URL's path: a path
ending in `/v1/rerank` or `/v2/rerank` speaks `documents`; any other path (TEI's `/rerank`,
which Infinity, vLLM and llama.cpp also serve) is sent `texts` first, and when it refuses that
body (400, 404, 405 or 422) the other one. Whatever was sent, a reply is read by its shape: a
list is TEI's, an object with `results` everybody else's. A reply that names an index twice or
one out of range, or a score that is not a number, is refused whole: half a ranking is not
trusted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

Dialect = Literal["jina", "tei"]
DialectSetting = Literal["auto", "jina", "tei"]
REFUSED_BODY = frozenset({400, 404, 405, 422})
"""Statuses that say the server wants the other dialect's body (under `auto`)."""


class RerankReplyError(ValueError):
    """The reranker answered, but not with a ranking of the texts sent."""


def dialects_to_try(url: str, setting: DialectSetting) -> tuple[Dialect, ...]:
    """The dialects to send to `url`, first choice first (see the module's rule)."""
    if setting != "auto":
        return (setting,)
    path = urlsplit(url).path.rstrip("/").lower()
    if path.endswith(("/v1/rerank", "/v2/rerank")):
        return ("jina",)
    return ("tei", "jina")


def request_body(
    dialect: Dialect, model: str, query: str, texts: Sequence[str], top_n: int
) -> dict[str, Any]:
    """The JSON body asking to rank `texts` for `query` (the model only when named)."""
    if dialect == "tei":
        return {"query": query, "texts": list(texts), "truncate": True}
    body: dict[str, Any] = {"query": query, "documents": list(texts), "top_n": top_n}
    if model:
        body["model"] = model
    return body


def read_ranking(reply: object, count: int) -> list[int]:
    """The indices of the `count` texts sent, best first, as far as `reply` ranks them.

    Raises:
        RerankReplyError: what is wrong with the reply.
    """
    if isinstance(reply, dict) and isinstance(reply.get("results"), list):
        items: list[object] = reply["results"]
        score_key = "relevance_score"
    elif isinstance(reply, list):
        items = reply
        score_key = "score"
    else:
        msg = f"the reranker's reply is {type(reply).__name__}, not a list of ranks"
        raise RerankReplyError(msg)
    scored: list[tuple[float, int]] = []
    seen: set[int] = set()
    for item in items:
        index, score = _rank(item, score_key)
        if not 0 <= index < count:
            msg = f"the reranker ranked text {index}, but was sent {count}"
            raise RerankReplyError(msg)
        if index in seen:
            msg = f"the reranker ranked text {index} twice"
            raise RerankReplyError(msg)
        seen.add(index)
        scored.append((score, index))
    if not scored and count:
        raise RerankReplyError("the reranker ranked none of the texts")
    scored.sort(key=lambda pair: -pair[0])
    return [index for _, index in scored]


def _rank(item: object, score_key: str) -> tuple[int, float]:
    """One rank's index and score."""
    if not isinstance(item, dict):
        msg = f"the reranker sent {type(item).__name__} where a rank belongs"
        raise RerankReplyError(msg)
    index = item.get("index")
    score = item.get(score_key, item.get("score"))
    if type(index) is not int:
        msg = f"the reranker sent index {str(index)[:20]!r}, not a number"
        raise RerankReplyError(msg)
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        msg = f"the reranker sent score {str(score)[:20]!r}, not a number"
        raise RerankReplyError(msg)
    return index, float(score)

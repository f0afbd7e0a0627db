"""The embeddings client: texts to vectors through an OpenAI-compatible `/embeddings` endpoint.

Two sides with different needs. The builder embeds passages from a thread of its own, so it
uses the blocking `OpenAI` client there: batched, paced to `calls_per_second`, retried with
backoff on 429, 5xx, timeouts and dropped connections, and stoppable between attempts. A search
embeds its one query with `AsyncOpenAI` on the event loop under a deadline and never retries:
a slow server costs the search at most `query_deadline_s`, then keyword results stand alone.

Every reply's shape is checked where it arrives (`vectors_in`): one flat vector of numbers
per text sent, all of one length. A server that sends something else (llama.cpp serving a model
without pooling sends one vector per token, a list of lists) is told in one sentence saying what
to change, instead of by numpy later with a traceback that names none of it; such an error is
never retried, since asking again gets the same answer.

Vectors come back normalised to length 1, so a dot product is their cosine. The API key is
only handed to the clients; it is left out of the config's repr and never logged.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the SDK and numpy load with the first embedding, not with the settings
    import numpy as np

log = logging.getLogger(__name__)
RETRY_STATUSES = frozenset({408, 409, 429})
MAX_BACKOFF_S = 60.0
BUILD_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class EmbeddingsConfig:
    """Where and how texts are embedded. `base_url` None: the `openai` package's default;
    `api_key` None: no key (a local server that asks for none). `on_tokens` hears the prompt
    tokens of every reply that reports them (the model's name, the count), from the builder's
    thread and from the event loop alike, so it must be safe to call from any thread."""

    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    batch: int = 64
    query_deadline_s: float = 1.5
    calls_per_second: float = 4.0
    attempts: int = 6
    on_tokens: Callable[[str, int], None] | None = field(default=None, repr=False, compare=False)

    def heard(self, usage: object) -> None:
        """Pass a reply's `usage.prompt_tokens` on to `on_tokens`, when both are there."""
        tokens = getattr(usage, "prompt_tokens", None)
        if self.on_tokens is not None and isinstance(tokens, int) and tokens > 0:
            self.on_tokens(self.model, tokens)


PER_TOKEN = (
    "the embeddings server returns one vector per token, not one per text: start llama.cpp's "
    "llama-server with --pooling mean, or use an embedding model"
)


class EmbeddingsError(RuntimeError):
    """The server did not embed the texts (after the retries the caller allows)."""


class EmbeddingsShapeError(EmbeddingsError):
    """The server answered, but not with one flat vector of numbers per text: asking again
    gets the same answer until the server is set up differently."""


def vectors_in(data: Sequence[object], texts: int) -> list[list[float]]:
    """The vectors of a reply's `data` (items with `embedding` and `index`), in the order of
    the texts sent.

    Raises:
        EmbeddingsShapeError: what is wrong with them, and what to change.
    """
    items = sorted(enumerate(data), key=lambda pair: _index(*pair))
    if len(items) != texts:
        msg = f"the embeddings server sent {len(items)} vectors for {texts} texts"
        raise EmbeddingsShapeError(msg)
    vectors = [_vector(getattr(item, "embedding", None)) for _, item in items]
    lengths = sorted({len(vector) for vector in vectors})
    if len(lengths) > 1:
        msg = (
            f"the embeddings server sent vectors of different lengths ({lengths[0]} and "
            f"{lengths[-1]} numbers) for one request"
        )
        raise EmbeddingsShapeError(msg)
    return vectors


def _index(position: int, item: object) -> int:
    index = getattr(item, "index", None)
    return index if isinstance(index, int) and not isinstance(index, bool) else position


def _vector(embedding: object) -> list[float]:
    """`embedding` if it is a flat, non-empty list of numbers."""
    if isinstance(embedding, list) and embedding and isinstance(embedding[0], list):
        raise EmbeddingsShapeError(PER_TOKEN)
    if not isinstance(embedding, list) or not embedding:
        kind = "an empty list" if isinstance(embedding, list) else type(embedding).__name__
        msg = f"the embeddings server sent {kind} where a vector of numbers belongs"
        raise EmbeddingsShapeError(msg)
    for number in embedding:
        if type(number) is not float and type(number) is not int:
            msg = f"the embeddings server sent a vector with {repr(number)[:20]} among its numbers"
            raise EmbeddingsShapeError(msg)
    return embedding


def normalised(data: Sequence[Sequence[float]]) -> np.ndarray:
    """Rows of `data` as float32 vectors of length 1 (a zero vector stays zero)."""
    import numpy as np  # noqa: PLC0415 - see the imports

    matrix = np.asarray(data, dtype=np.float32)
    if matrix.ndim != 2 or not matrix.shape[1]:
        msg = f"the server sent vectors of shape {matrix.shape}"
        raise EmbeddingsError(msg)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _retryable(exc: Exception) -> bool:
    import openai  # noqa: PLC0415 - see the imports

    if isinstance(exc, openai.APIConnectionError):  # timeouts are connection errors too
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRY_STATUSES or exc.status_code >= 500
    return False


def describe(exc: BaseException) -> str:
    """A short reason for a log line or a status, without the request (or its key)."""
    import openai  # noqa: PLC0415 - see the imports

    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code} from the embeddings server"
    if isinstance(exc, openai.APITimeoutError):
        return "the embeddings server timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "the embeddings server cannot be reached"
    return str(exc)[:200] or type(exc).__name__


def unreadable_reply(exc: ValueError) -> EmbeddingsShapeError:
    """The SDK found no vectors in the reply, or could not decode them."""
    return EmbeddingsShapeError(
        f"the embeddings server's reply could not be read: {describe(exc)}"
    )


class PassageEmbedder:
    """The builder's side: blocking, batched, paced and retried (call from one thread)."""

    def __init__(self, config: EmbeddingsConfig, stopping: threading.Event) -> None:
        import openai  # noqa: PLC0415 - see the imports

        self.config = config
        self._stopping = stopping
        self._client = openai.OpenAI(
            base_url=config.base_url,
            api_key=config.api_key or "none",
            timeout=BUILD_TIMEOUT_S,
            max_retries=0,
        )
        self._next_call = 0.0
        self.calls = 0
        """Requests sent (retries included): what the embeddings cost in calls."""
        self.texts = 0
        """Texts embedded."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for `texts` in one call, retried with backoff.

        Raises:
            EmbeddingsError: the server kept failing, refused for good, or a stop was asked.
        """
        import openai  # noqa: PLC0415 - see the imports

        delay = 1.0
        for attempt in range(1, self.config.attempts + 1):
            self._pace()
            self.calls += 1
            try:
                reply = self._client.embeddings.create(model=self.config.model, input=list(texts))
            except ValueError as exc:  # the SDK's own reading of the vectors (base64) failed
                raise unreadable_reply(exc) from exc
            except openai.OpenAIError as exc:
                if not _retryable(exc) or attempt == self.config.attempts:
                    raise EmbeddingsError(describe(exc)) from exc
                log.warning("embeddings: %s; trying again in %.0f s", describe(exc), delay)
                if self._stopping.wait(delay):
                    raise EmbeddingsError("stopped") from exc
                delay = min(delay * 2, MAX_BACKOFF_S)
                continue
            vectors = vectors_in(reply.data, len(texts))
            self.texts += len(texts)
            self.config.heard(reply.usage)
            return normalised(vectors)
        raise EmbeddingsError("no attempts allowed")

    def _pace(self) -> None:
        """Wait until the next call is allowed (`calls_per_second`)."""
        now = time.monotonic()
        wait = self._next_call - now
        if wait > 0:
            self._stopping.wait(wait)
        self._next_call = max(now, self._next_call) + 1.0 / self.config.calls_per_second

    def close(self) -> None:
        self._client.close()


class QueryEmbedder:
    """The search's side: one query, one call, on the event loop, within the deadline."""

    def __init__(self, config: EmbeddingsConfig) -> None:
        import openai  # noqa: PLC0415 - see the imports

        self.config = config
        self._client = openai.AsyncOpenAI(
            base_url=config.base_url,
            api_key=config.api_key or "none",
            timeout=config.query_deadline_s,
            max_retries=0,
        )
        self.calls = 0

    async def embed(self, query: str) -> np.ndarray:
        """The query's vector.

        Raises:
            EmbeddingsError: no answer within the deadline, or a failed one.
        """
        import openai  # noqa: PLC0415 - see the imports

        self.calls += 1
        try:
            async with asyncio.timeout(self.config.query_deadline_s):
                reply = await self._client.embeddings.create(
                    model=self.config.model, input=[query]
                )
        except TimeoutError as exc:
            deadline = self.config.query_deadline_s
            msg = f"the embeddings server did not answer within {deadline:g} s"
            raise EmbeddingsError(msg) from exc
        except ValueError as exc:  # the SDK's own reading of the vectors (base64) failed
            raise unreadable_reply(exc) from exc
        except openai.OpenAIError as exc:
            raise EmbeddingsError(describe(exc)) from exc
        self.config.heard(reply.usage)
        vector: np.ndarray = normalised(vectors_in(reply.data, 1))[0]
        return vector

    async def close(self) -> None:
        await self._client.close()

"""The folder's mean passage vector, half of which is taken from every query before the scan.

A sentence encoder's vectors all lean one way: the passages of one folder share a common
direction (with the shipped multilingual encoder their mean is about 0.55 long, so two
unrelated passages already score about 0.3). The passages that lean furthest that way are the
folder's most ordinary ones (minutes, orders, newsletters, copies of one text), and they come
out nearest to almost every question. Searching with `query - SHARE * mean` (made length 1
again) scores each passage by its nearness to the query less half its nearness to the folder's
average: the ordinary passages lose their head start, the ones that speak of what the query
asks keep theirs. On the meaning benchmark this lifts dense recall on paraphrases from 0.70 to
0.83, with any share from 0.4 to 0.6; a share of 1 (full centring) overshoots.

With the query centred, a passage whose similarity is not above 0 is at most half as near to
the query as to the folder's mean (q·p ≤ SHARE · mean·p): `fusion` takes it as "not found by
meaning".

The mean is estimated from the passages of up to `SAMPLE_FILES` documents spread over the
keyword index, their vectors read from the embeddings cache (no embeddings call), and
estimated again once the number of passages in the vector index (looked at no more often than
every `RECHECK_S`, and in every process, the building one or not) has changed by
`REFRESH_SHARE`. Fewer than `MIN_VECTORS` vectors found (a build just begun) leave queries as
they are.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from tools.index.indexer import Indexer
from tools.index.store import load_text
from tools.vectors.cache import SCALE, EmbeddingCache, unpack
from tools.vectors.passages import cut_passages

SHARE = 0.5
"""How much of the folder's mean is taken from a query."""
SAMPLE_FILES = 256
"""Documents whose passages estimate the mean (64 already give the same rankings)."""
SAMPLE_BYTES = 16 * 1024
"""Of each sampled document, the passages of its first this many bytes."""
MIN_VECTORS = 32
REFRESH_SHARE = 0.1
RECHECK_S = 30.0


class FolderCentre:
    """The mean of the folder's passage vectors, kept in step with the vector index (blocking;
    any thread). `progress` counts the index's passages."""

    def __init__(
        self, indexer: Indexer, cache: EmbeddingCache, model: str, progress: Callable[[], int]
    ) -> None:
        self.indexer = indexer
        self.cache = cache
        self.model = model
        self.progress = progress
        self._lock = threading.Lock()
        self._mean: np.ndarray | None = None
        self._at = -1
        self._looked = -RECHECK_S

    def centred(self, vector: np.ndarray) -> tuple[np.ndarray, bool]:
        """The query `vector` with `SHARE` of the mean taken away (length 1), and whether it
        was (False: too few vectors yet to know the mean)."""
        mean = self.mean()
        if mean is None:
            return vector, False
        moved = vector - SHARE * mean
        norm = float(np.linalg.norm(moved))
        if norm == 0:
            return vector, False
        return moved / norm, True

    def mean(self) -> np.ndarray | None:
        """The current estimate, made again when the passages with vectors have changed by
        `REFRESH_SHARE` since it was made."""
        with self._lock:
            now = time.monotonic()
            if now - self._looked < RECHECK_S:
                return self._mean
            self._looked = now
            done = self.progress()
            if self._at < 0 or abs(done - self._at) > REFRESH_SHARE * max(self._at, 1):
                self._mean = self._estimate()
                self._at = done
            return self._mean

    def _estimate(self) -> np.ndarray | None:
        digests: list[str] = []
        with self.indexer.readers.connection() as conn:
            ids = [int(i) for (i,) in conn.execute("SELECT id FROM files ORDER BY id")]
            step = max(1, len(ids) // SAMPLE_FILES)
            for rowid in ids[::step][:SAMPLE_FILES]:
                text = load_text(conn, rowid, SAMPLE_BYTES)
                passages = cut_passages("", text)
                if len(text.encode("utf-8", "replace")) >= SAMPLE_BYTES:
                    passages = passages[:-1]  # cut short here, not where the build cut it
                digests.extend(p.digest for p in passages)
        found = self.cache.get_many(self.model, list(dict.fromkeys(digests)))
        if len(found) < MIN_VECTORS:
            return None
        vectors = unpack(found.values()).astype(np.float32) / SCALE
        mean: np.ndarray = vectors.mean(axis=0)
        return mean

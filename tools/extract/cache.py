"""Extracted documents kept in memory, so paging a long PDF parses it once.

Keyed by path, size and mtime: a changed file is a different key, so stale text is never served.
Bounded by an estimate of the bytes held; the least recently used documents go first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from tools.errors import ContentError
from tools.extract.extractor import Extractor


@dataclass(frozen=True)
class Document:
    """A document's text split into lines, as read_file numbers them, or why it has none."""

    lines: tuple[str, ...]
    error: str | None = None
    hint: str | None = None

    @classmethod
    def from_text(cls, text: str) -> Document:
        return cls(tuple(text.split("\n")) if text else ())

    @cached_property
    def cost(self) -> int:
        """Rough bytes held: str payload plus per-object overhead."""
        return sum(len(line) for line in self.lines) * 2 + 64 * len(self.lines) + 64


CacheKey = tuple[str, int, int]


class DocumentCache:
    """A thread-safe LRU of extracted documents, bounded by total cost in bytes."""

    def __init__(self, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[CacheKey, Document] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: CacheKey) -> Document | None:
        with self._lock:
            doc = self._items.get(key)
            if doc is not None:
                self._items.move_to_end(key)
            return doc

    def put(self, key: CacheKey, doc: Document) -> None:
        cost = doc.cost
        if cost > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= old.cost
            self._items[key] = doc
            self._size += cost
            while self._size > self.max_bytes and self._items:
                _, dropped = self._items.popitem(last=False)
                self._size -= dropped.cost

    @property
    def size(self) -> int:
        """Bytes currently held (estimate)."""
        return self._size

    def __len__(self) -> int:
        return len(self._items)


def cached_extract(
    extractor: Extractor,
    cache: DocumentCache,
    real: Path,
    key: CacheKey,
    *,
    keep: bool = True,
    background: bool = False,
) -> Document:
    """The document from the cache, or extracted now and cached (failures of content too).

    `keep=False` leaves a successfully extracted text out of the cache (the indexer reads every
    file once; caching cheap ones would only push out what people are reading).

    Raises:
        ExtractionError: the file cannot be read; `ContentError` verdicts are cached.
    """
    doc = cache.get(key)
    if doc is None:
        try:
            doc = Document.from_text(extractor.extract(real, background=background))
        except ContentError as exc:
            doc = Document((), exc.message, exc.hint)
            keep = True
        if keep:
            cache.put(key, doc)
    if doc.error is not None:
        raise ContentError(doc.error, doc.hint)
    return doc

"""Pages of PDFs and scans drawn as pictures, by a worker process of their own, kept in memory.

Drawing runs in an isolated worker (`tools.extract.worker`) under its memory cap and a deadline
per page, like parsing: a hostile PDF costs that child, never the bot. It is a worker of its
own, started at the first picture, so a picture never waits behind a long document being read,
and reading never waits behind a picture. Pictures are kept in an LRU bounded by bytes, keyed
by the file's real path, size, modification time and the page: a changed file is another key,
so a stale page is never shown. Memory rather than files in DATA_DIR: a page is a few hundred
kilobytes, taps on one answer's pages come within minutes of each other, and a restart losing
them costs one render each.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from tools.errors import ExtractionError, NoSuchPageError, NotPagedError
from tools.extract.extractor import Limits, read_bytes
from tools.extract.formats.kinds import PAGED_KINDS, kind_of
from tools.extract.isolated import IsolatedExtractor

PICTURE_SECONDS = 20.0
"""The longest one page may take to draw, the document's parsing included."""
MAX_SIDE = 1600
"""Pixels on the longest side of a picture: a page's text stays readable on a phone, and a
picture is a few hundred kilobytes."""
CACHE_BYTES = 32 * 1024 * 1024
"""About a hundred pages at the usual few hundred kilobytes each."""

PictureKey = tuple[str, int, int, int]


class PictureCache:
    """A thread-safe LRU of pictures, bounded by their total size in bytes."""

    def __init__(self, max_bytes: int = CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[PictureKey, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: PictureKey) -> bytes | None:
        with self._lock:
            picture = self._items.get(key)
            if picture is not None:
                self._items.move_to_end(key)
            return picture

    def put(self, key: PictureKey, picture: bytes) -> None:
        if len(picture) > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            self._size += len(picture) - (0 if old is None else len(old))
            self._items[key] = picture
            while self._size > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self._size -= len(dropped)

    @property
    def size(self) -> int:
        """Bytes held."""
        return self._size


class PagePictures:
    """JPEG pictures of single pages of the PDFs and scans inside the documents folder."""

    def __init__(
        self,
        limits: Limits,
        worker: Sequence[str] | None = None,
        root: Path | None = None,
        *,
        cache_bytes: int = CACHE_BYTES,
        seconds: float = PICTURE_SECONDS,
        max_side: int = MAX_SIDE,
    ) -> None:
        self.limits = limits
        self.root = root
        self.max_side = max_side
        self.cache = PictureCache(cache_bytes)
        self._worker = IsolatedExtractor(seconds, worker)
        self._count = itertools.count(1)
        self.renders = 0
        """Pages drawn by the worker since start (a picture from the cache is not one)."""

    def picture(self, real: Path, page: int) -> bytes:
        """Page `page` (from 1) of the file at `real`, a path the jail has checked (blocking).

        Raises:
            NotPagedError: the file is neither a PDF nor a scan.
            NoSuchPageError: it has fewer pages.
            ExtractionError: it is gone, too large, broken, or too slow to draw.
        """
        kind = kind_of(real)
        if kind not in PAGED_KINDS:
            raise NotPagedError(f"a {real.suffix.lower() or 'plain'} file has no pages to show")
        if page < 1:
            raise NoSuchPageError(page)
        key = _key(real, page)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        data = read_bytes(real, self.limits, self.root)
        picture = self._worker.picture(kind, data, page, self.max_side, str(real))
        self.renders = next(self._count)
        if _key(real, page) == key:  # the file did not change while it was drawn
            self.cache.put(key, picture)
        return picture

    def close(self) -> None:
        """Stop the worker; later calls fail fast."""
        self._worker.close()


def _key(real: Path, page: int) -> PictureKey:
    try:
        info = os.stat(real)
    except FileNotFoundError:
        raise ExtractionError("the file disappeared while being read") from None
    except OSError as exc:
        raise ExtractionError(f"the file cannot be opened ({exc.strerror})") from None
    return (str(real), info.st_size, info.st_mtime_ns, page)

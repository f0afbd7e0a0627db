"""The parent's side of the children that prepare a large pass (`prepare_child`).

Each child gets file after file down its pipe and sends each back prepared, in order; a
thread per child reads the replies and settles their futures. How much is in flight is
bounded by the caller (the indexer keeps at most `AHEAD` files ahead of its writer), so the
children's memory and the pipes' stay small. A child that dies, or fails on a file, fails that
file's future with `NotPrepared`: the caller prepares it in its own threads instead.
The children see only the variables a parser process does: never the bot's token or keys.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from tools.extract.extractor import Extractor
from tools.extract.isolated import worker_environment
from tools.index.prepare import Signature
from tools.index.prepare_child import ENCODING_ERRORS
from tools.index.store import Prepared
from tools.jail.sandbox import Sandbox

log = logging.getLogger(__name__)
_COMMAND = ("-m", "tools.index.prepare_child")
_MAX_HEADER = 1024 * 1024
_CLOSE_WAIT_S = 10.0
Outcome = tuple[Prepared, bool]


class NotPrepared(Exception):
    """The children did not prepare this file (handed back, or a child died)."""


class _Child:
    """One child process, the files it was sent and the thread reading its replies."""

    def __init__(self, config: str, number: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, *_COMMAND, config],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=worker_environment(os.environ),
            close_fds=True,
        )
        self.pending: collections.deque[tuple[str, concurrent.futures.Future[Outcome]]] = (
            collections.deque()
        )
        self.lock = threading.Lock()
        self.gone = False
        self.prepared = 0
        self.reader = threading.Thread(
            target=self._read, name=f"tools-index-child-{number}", daemon=True
        )
        self.reader.start()

    def send(self, rel: str, sig: Signature) -> concurrent.futures.Future[Outcome]:
        future: concurrent.futures.Future[Outcome] = concurrent.futures.Future()
        future.set_running_or_notify_cancel()  # settled by the reader, never cancelled
        line = json.dumps({"rel": rel, "size": sig[0], "mtime_ns": sig[1]}) + "\n"
        with self.lock:
            if self.gone:
                future.set_exception(NotPrepared("the child has stopped"))
                return future
            self.pending.append((rel, future))
            try:
                stdin = self.proc.stdin
                assert stdin is not None  # created with pipes
                stdin.write(line.encode("ascii"))
                stdin.flush()
            except (OSError, ValueError):
                self._fail_pending()
        return future

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None  # created with pipes
        future: concurrent.futures.Future[Outcome] | None = None
        try:
            while True:
                header = _header(out)
                if header is None:
                    break
                with self.lock:
                    rel, future = self.pending.popleft()
                outcome = _outcome(header, out, rel)
                if isinstance(outcome, str):
                    future.set_exception(NotPrepared(outcome))
                else:
                    self.prepared += 1
                    future.set_result(outcome)
        except (OSError, ValueError, EOFError, IndexError) as exc:
            log.warning("an index preparing process failed (%s); its files are redone", exc)
            if future is not None and not future.done():
                future.set_exception(NotPrepared("the child's reply was broken"))
        with self.lock:
            self._fail_pending()

    def _fail_pending(self) -> None:
        """Settle every file sent and not answered (the lock held)."""
        self.gone = True
        while self.pending:
            _, future = self.pending.popleft()
            future.set_exception(NotPrepared("the child has stopped"))

    def peak_rss_mb(self) -> float:
        """The child's peak resident memory (0 where /proc does not tell)."""
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def close(self, wait_s: float) -> None:
        """Let the child answer what it holds and leave; killed if it has not within
        `wait_s` seconds."""
        with self.lock, contextlib.suppress(OSError, ValueError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class PreparePool:
    """`processes` children preparing files of the folder `sandbox` guards, read as
    `extractor` reads them (its limits, its parser process)."""

    def __init__(self, sandbox: Sandbox, extractor: Extractor, processes: int) -> None:
        limits = extractor.limits
        config = json.dumps(
            {
                "root": str(sandbox.root),
                "reserved": [str(p) for p in sandbox.reserved],
                "max_file_bytes": limits.max_file_bytes,
                "max_chars": limits.max_chars,
                "timeout": limits.timeout,
                "worker": None if extractor.worker is None else list(extractor.worker),
            }
        )
        self._children = [_Child(config, n) for n in range(max(1, processes))]
        self.peak_rss_mb = 0.0

    def submit(self, rel: str, sig: Signature) -> concurrent.futures.Future[Outcome]:
        """Prepare one file in the child with the least to do."""
        child = min(self._children, key=lambda c: (c.gone, len(c.pending)))
        return child.send(rel, sig)

    @property
    def prepared(self) -> int:
        """Files the children prepared."""
        return sum(c.prepared for c in self._children)

    def close(self, *, wait: bool = True) -> None:
        """Stop every child: after it answers what it was sent, or at once (`wait` False:
        shutting down, when a scan could hold it for minutes)."""
        self.peak_rss_mb = max((c.peak_rss_mb() for c in self._children), default=0.0)
        for child in self._children:
            child.close(_CLOSE_WAIT_S if wait else 0.0)


def _header(out: IO[bytes]) -> dict[str, object] | None:
    """The next reply's header; None at the end of the pipe."""
    size = out.read(4)
    if not size:
        return None
    length = int.from_bytes(_exact(out, 4, size), "big")
    if length > _MAX_HEADER:
        raise ValueError("an over-long reply header")
    header = json.loads(_exact(out, length, out.read(length)))
    if not isinstance(header, dict):
        raise ValueError("a reply header that is not an object")
    return header


def _exact(out: IO[bytes], size: int, data: bytes) -> bytes:
    if len(data) != size:
        raise EOFError("the pipe ended mid-reply")
    return data


def _outcome(header: dict[str, object], out: IO[bytes], rel: str) -> Outcome | str:
    """The prepared file `rel` a header announces (its parts read from the pipe), or why
    not."""
    if "failed" in header:
        return f"the child failed ({header['failed']})"
    text_len, blob_len = _count(header, "text"), _count(header, "blob")
    text = _exact(out, text_len, out.read(text_len)).decode("utf-8", ENCODING_ERRORS)
    blob = _exact(out, blob_len, out.read(blob_len)) if blob_len >= 0 else None
    error, terms, language = header.get("error"), header.get("name_terms"), header.get("language")
    prepared = Prepared(
        path=rel,
        size=_count(header, "size"),
        mtime_ns=_count(header, "mtime_ns"),
        chars=_count(header, "chars"),
        error=error if isinstance(error, str) else None,
        name_terms=str(terms),
        body_text=text,
        language=language if isinstance(language, str) else None,
        blob=blob,
    )
    return prepared, header.get("retry") is True


def _count(header: dict[str, object], key: str) -> int:
    value = header.get(key)
    if not isinstance(value, int):
        raise ValueError(f"a reply header without {key}")
    return value

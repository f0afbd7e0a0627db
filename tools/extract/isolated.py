"""The parent side of the extraction worker: one child process, restarted when it misbehaves."""

from __future__ import annotations

import base64
import json
import logging
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from tools.errors import ContentError, ExtractionError, NoSuchPageError

log = logging.getLogger(__name__)
_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)
_MAX_REPLY = 256 * 1024 * 1024
_WORKER = ("-m", "tools.extract.worker")
_REMEMBERED_TIMEOUTS = 1024
_RETRY_HINT = (
    "The search index recognises it in the background; read it again in a few minutes, or"
    " answer from other files meanwhile."
)


_PASSED = frozenset(
    {"PATH", "LANG", "LANGUAGE", "TMPDIR", "TEMP", "TMP", "HOME", "SYSTEMROOT", "PYTHONUTF8"}
)


def worker_environment(parent: Mapping[str, str]) -> dict[str, str]:
    """The few variables a parser process needs: it never sees the bot's token or API key."""
    env = {k: v for k, v in parent.items() if k in _PASSED or k.startswith("LC_")}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (_PACKAGE_PARENT, parent.get("PYTHONPATH", "")) if p
    )
    return env


class StillWorking(ExtractionError):
    """The document needs longer than the deadline given: a scan the index recognises under
    an extended deadline, after which it is cached (worth asking again, not a verdict)."""


class IsolatedExtractor:
    """Runs document parsing (PDF, office files, ...) in a child process with a deadline per
    document.

    Calls are serialised (one child, one document at a time) and blocking: call it from a
    worker thread. A child that overruns the deadline or dies is killed and replaced lazily.

    A failure caused by shutdown, or a first timeout (the machine may just be busy), is an
    `ExtractionError` the caller may retry; only a second timeout on the same file, or a
    parser verdict, is a `ContentError` that sticks until the file changes.
    `command` replaces the worker's argv after the interpreter (tests gate the worker with it).
    """

    def __init__(self, timeout: float = 30.0, command: Sequence[str] | None = None) -> None:
        self.timeout = timeout
        self.command = _WORKER if command is None else tuple(command)
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._closed = False
        self._timed_out: dict[str, None] = {}

    def _spawn(self) -> subprocess.Popen[bytes]:
        env = worker_environment(os.environ)
        return subprocess.Popen(
            [sys.executable, *self.command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            close_fds=True,
        )

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()

    def extract(
        self,
        kind: str,
        data: bytes,
        max_chars: int,
        key: str = "",
        *,
        seconds: float | None = None,
        extended: bool = False,
    ) -> str:
        """The text of a document given as bytes; raises ExtractionError with a reason safe
        to show. `key` names the file for remembering timeouts; `seconds` replaces the
        deadline, `extended` tells the parser it is the long one a scan gets.

        Raises:
            StillWorking: the document (a long scan) needs a longer deadline than this.
        """
        timeout = self.timeout if seconds is None else seconds
        request = {
            "kind": kind,
            "size": len(data),
            "max_chars": max_chars,
            "seconds": timeout,
            "extended": extended,
        }
        reply = self._exchange(request, data, key, timeout, "read")
        if "error" in reply and reply.get("retry") is True:
            raise StillWorking(str(reply["error"]), _RETRY_HINT)
        if "error" in reply:
            raise ContentError(str(reply["error"]))
        return str(reply["ok"])

    def picture(self, kind: str, data: bytes, page: int, max_side: int, key: str = "") -> bytes:
        """Page `page` (from 1) of a PDF or scan given as bytes, drawn as a JPEG whose
        longest side is `max_side` pixels.

        Raises:
            NoSuchPageError: the document has fewer pages.
            ExtractionError: the document cannot be drawn (a reason safe to show).
        """
        request = {"kind": kind, "size": len(data), "page": page, "max_side": max_side}
        reply = self._exchange(request, data, key, self.timeout, "render")
        if "error" in reply:
            pages = reply.get("pages")
            if isinstance(pages, int):
                raise NoSuchPageError(page, pages)
            raise ContentError(str(reply["error"]))
        try:
            return base64.b64decode(str(reply["ok"]), validate=True)
        except (KeyError, ValueError):
            raise ContentError(f"this {kind} file could not be rendered") from None

    def _exchange(
        self, request: dict[str, object], data: bytes, key: str, timeout: float, verb: str
    ) -> dict[str, object]:
        """One request and its reply; a child that overruns or dies is killed, and the
        failure raised as an ExtractionError saying what could not be done (`verb`)."""
        kind = str(request["kind"])
        with self._lock:
            if self._closed:
                raise ExtractionError("the toolbox is shutting down")
            if self._proc is None or self._proc.poll() is not None:
                self._kill()
                self._proc = self._spawn()
            proc = self._proc
            assert proc.stdin is not None  # created with pipes
            assert proc.stdout is not None
            try:
                proc.stdin.write(json.dumps(request).encode("ascii") + b"\n")
                proc.stdin.write(data)
                proc.stdin.flush()
                reply = self._read_reply(proc.stdout.fileno(), time.monotonic() + timeout)
            except TimeoutError:
                self._kill()
                raise self._timed_out_error(kind, key, timeout, verb) from None
            except (OSError, EOFError, ValueError):
                self._kill()
                if self._closed:
                    raise ExtractionError("the toolbox is shutting down") from None
                log.warning("the extraction worker died on a %s file; restarting it", kind)
                msg = f"this {kind} file is too large or complex to {verb}"
                raise ContentError(msg) from None
            self._timed_out.pop(key, None)
        return reply

    def _timed_out_error(self, kind: str, key: str, timeout: float, verb: str) -> ExtractionError:
        """Retryable the first time (a busy machine), a lasting verdict the second."""
        if self._closed:
            return ExtractionError("the toolbox is shutting down")
        log.warning("%sing a %s file took over %.0f s; worker restarted", verb, kind, timeout)
        msg = f"{verb}ing this {kind} file took too long (over {timeout:.0f} s)"
        if key in self._timed_out:
            del self._timed_out[key]
            return ContentError(msg)
        if len(self._timed_out) >= _REMEMBERED_TIMEOUTS:
            del self._timed_out[next(iter(self._timed_out))]
        self._timed_out[key] = None
        return ExtractionError(msg, "It may work later, when the machine is less busy.")

    @staticmethod
    def _read_exact(fd: int, size: int, deadline: float) -> bytes:
        chunks: list[bytes] = []
        remaining = size
        while remaining:
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def _read_reply(self, fd: int, deadline: float) -> dict[str, object]:
        size = int.from_bytes(self._read_exact(fd, 4, deadline), "big")
        if size > _MAX_REPLY:
            raise ValueError
        reply = json.loads(self._read_exact(fd, size, deadline))
        if not isinstance(reply, dict):
            raise ValueError
        return reply

    def close(self) -> None:
        """Stop the child; later calls fail fast."""
        self._closed = True
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()  # unblocks a call in flight, which then fails fast
        with self._lock:
            self._kill()

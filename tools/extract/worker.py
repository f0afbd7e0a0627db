"""A child process that parses documents (PDF, office files, e-books, e-mails) under memory and
time limits.

A crafted document can make a parser loop or allocate without bound, and a thread cannot be
stopped; a process can. The parent (`IsolatedExtractor`) sends one request at a time and kills
the child when it overruns its time; the child caps its own address space.

Protocol: one JSON line in (`{"kind", "size", "max_chars", "seconds", "extended"}`) followed
by `size` bytes of the document (the parent opened it through the jail; the worker never opens
a path), one framed reply out (4-byte big-endian length, then JSON `{"ok": text}` or
`{"error": message}`, with `"retry": true` when the work only needs a longer deadline).
A request with `"page": N` (and `"max_side"`) asks for that page drawn as a JPEG instead: the
reply is `{"ok": base64 of the JPEG}`, or an error with `"pages"`, the count, when there is
no such page.
"""

from __future__ import annotations

import base64
import contextlib
import json
import resource
import sys
from collections.abc import Callable

from tools.extract.formats.base import Budget, FormatError, Unfinished
from tools.extract.formats.pictures import LARGEST_SIDE, NoPage, page_picture
from tools.extract.formats.registry import parser_for

MEMORY_LIMIT = 1024 * 1024 * 1024


def _handle(request: dict[str, object], data: bytes) -> dict[str, object]:
    if "page" in request:
        return _picture(request, data)
    parser = parser_for(str(request["kind"]))
    max_chars = request["max_chars"]
    seconds = request.get("seconds", 30.0)
    if parser is None or not isinstance(max_chars, int) or not isinstance(seconds, int | float):
        return {"error": "unsupported request"}
    budget = Budget(max_chars, float(seconds), request.get("extended") is True)
    return _guarded(lambda: {"ok": parser(data, budget)})


def _picture(request: dict[str, object], data: bytes) -> dict[str, object]:
    page, side = request["page"], request.get("max_side")
    if not isinstance(page, int) or not isinstance(side, int) or not 1 <= side <= LARGEST_SIDE:
        return {"error": "unsupported request"}
    kind = str(request["kind"])

    def draw() -> dict[str, object]:
        return {"ok": base64.b64encode(page_picture(kind, data, page, side)).decode("ascii")}

    return _guarded(draw)


def _guarded(work: Callable[[], dict[str, object]]) -> dict[str, object]:
    """The reply of `work`, or the error a broken or hostile document caused."""
    try:
        return work()
    except Unfinished as exc:
        return {"error": str(exc), "retry": True}
    except NoPage as exc:
        return {"error": str(exc), "pages": exc.pages}
    except FormatError as exc:
        message = str(exc)
    except MemoryError:
        message = "the document needs too much memory to read"
    except RecursionError:
        message = "the document is nested too deeply to read"
    except Exception as exc:  # any parser failure is a property of the file
        message = f"the document could not be parsed ({type(exc).__name__})"
    return {"error": message}


def _limit_memory() -> None:
    """Cap the address space; time is bounded by the parent's per-document deadline (a CPU
    limit would add up over the life of a long-running worker and kill it unfairly)."""
    with contextlib.suppress(ValueError, OSError):  # some systems refuse; the deadline holds
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def main() -> None:
    """Serve requests from stdin until it closes."""
    _limit_memory()
    source, out = sys.stdin.buffer, sys.stdout.buffer
    for line in source:
        request = json.loads(line)
        size = request.get("size")
        data = source.read(size) if isinstance(size, int) and size >= 0 else b""
        if len(data) != size:
            return  # the parent went away mid-request
        reply = _handle(request, data)
        body = json.dumps(reply).encode("ascii")
        out.write(len(body).to_bytes(4, "big") + body)
        out.flush()


if __name__ == "__main__":
    main()

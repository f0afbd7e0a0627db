"""A child process that prepares files for the index (`python -m tools.index.prepare_child`).

A large pass spends most of its interpreter time decoding, normalising, folding and compressing
plain texts; in the bot's own process that work shares one interpreter lock with the writer and
the searches, so it runs on one core. Several of these children do it side by side while the
parent only stores what they send back (`prepare_pool` is the parent's side).

Each finds a file through a jail of its own (the same root and reserved folders as the
parent's) and prepares it with the same `prepare_file` as the parent's threads. A costly
format goes to a parser process of the child's own (`tools.extract.worker`, under the same
memory cap and deadlines), so documents are parsed side by side too, not one at a time.

Protocol: the configuration as JSON in the first argument (`root`, `reserved`,
`max_file_bytes`, `max_chars`, `timeout`, `worker`: the parser's argv or null); then one JSON
line in per file (`rel`, `size`, `mtime_ns`), one frame out per line, in order: a 4-byte
big-endian length, a JSON header, then `text` bytes of the folded text in UTF-8 and `blob`
bytes of the compressed text. A header of `{"failed": name}` reports a bug: the parent
prepares that file itself.
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import BinaryIO

from tools.extract.cache import DocumentCache
from tools.extract.extractor import Extractor, Limits
from tools.index.prepare import prepare_file
from tools.index.store import Prepared
from tools.index.terms import Stemmer
from tools.jail.sandbox import Sandbox

ENCODING_ERRORS = "surrogatepass"
"""How the folded text crosses the pipe: any string the parent could hold comes back as it
was."""


def frame(header: dict[str, object], *parts: bytes) -> bytes:
    """One reply: its header's length, the header, then the parts it counts."""
    body = json.dumps(header).encode("ascii")
    return len(body).to_bytes(4, "big") + body + b"".join(parts)


def reply_for(doc: Prepared, retry: bool) -> bytes:
    text = doc.body_text.encode("utf-8", ENCODING_ERRORS)
    blob = doc.blob or b""
    header: dict[str, object] = {
        "size": doc.size,
        "mtime_ns": doc.mtime_ns,
        "chars": doc.chars,
        "error": doc.error,
        "name_terms": doc.name_terms,
        "language": doc.language,
        "retry": retry,
        "text": len(text),
        "blob": len(blob) if doc.blob is not None else -1,
    }
    return frame(header, text, blob)


class Child:
    """The jail, extractor and stemmer one child prepares with."""

    def __init__(self, config: dict[str, object]) -> None:
        reserved = config.get("reserved")
        paths = tuple(Path(str(p)) for p in reserved) if isinstance(reserved, list) else ()
        self.sandbox = Sandbox(Path(str(config["root"])), reserved=paths)
        limits = Limits(
            max_file_bytes=int(_number(config, "max_file_bytes")),
            max_chars=int(_number(config, "max_chars")),
            timeout=_number(config, "timeout"),
        )
        worker = config.get("worker")
        command = [str(part) for part in worker] if isinstance(worker, list) else None
        self.extractor = Extractor(limits, command, self.sandbox.root)
        self.cache = DocumentCache(0)  # holds nothing: each file is read once
        self.stemmer = Stemmer()

    def reply(self, rel: str, size: int, mtime_ns: int) -> bytes:
        try:
            doc, retry = prepare_file(
                rel,
                (size, mtime_ns),
                locate=lambda: self.sandbox.resolve(rel),
                extractor=self.extractor,
                cache=self.cache,
                stemmer=self.stemmer,
                keep=False,
            )
        except Exception as exc:  # a bug is the parent's to log; it prepares the file itself
            return frame({"failed": type(exc).__name__})
        return reply_for(doc, retry)

    def serve(self, source: BinaryIO, out: BinaryIO) -> None:
        """Answer each request until the parent closes the pipe."""
        for line in source:
            request = json.loads(line)
            out.write(self.reply(str(request["rel"]), request["size"], request["mtime_ns"]))
            out.flush()


def _number(config: dict[str, object], key: str) -> float:
    value = config[key]
    if not isinstance(value, int | float):
        msg = f"{key} must be a number"
        raise TypeError(msg)
    return float(value)


def main() -> None:
    # Ctrl+C reaches the whole process group; the parent ends this child by closing the pipe.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    child = Child(json.loads(sys.argv[1]))
    try:
        child.serve(sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:  # the parent went away
        pass
    finally:
        child.extractor.close()


if __name__ == "__main__":
    main()

"""What a source's mirror placed in its folder, and how its last pass went, kept in DATA_DIR.

One JSON file per source (`DATA_DIR/sources/<name>.json`), written whole to a temporary file
and renamed over the old one, so a crash leaves the old state or the new one, never half. For
each file the mirror placed it keeps the remote item's id, version, size and content hash, and
the local file's size and modification time as placed: a local edit shows as a difference there,
and the source's copy is put back. Beside that: the last pass's report, the last success, and a
mass deletion waiting for an admin's confirmation.

Apart from it (`DATA_DIR/sources/.told/<name>.json`, small, written only when it changes): the
trouble the admins were told of, so a restart or another worker does not tell them again. It is
the running bot's, not data (a dot-name: `backup` leaves it out; without it, the admins of a
source still failing are told once more).

A state file that cannot be read is logged and taken as empty: the next pass fetches every item
again, which costs downloads but loses nothing.

Everything here is blocking file work; callers run it in a thread.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_VERSION = 1


@dataclass(frozen=True, slots=True)
class Placed:
    """One file the mirror placed: the remote item as listed, the local file as written."""

    item_id: str
    version: str
    size: int
    content_hash: str | None
    local_size: int
    local_mtime_ns: int


@dataclass(frozen=True, slots=True)
class PassReport:
    """How one pass went. `error` is one line for the admin (no secret), None when clean;
    `problem` says what kind of trouble: a `SourceError` problem, `suspicious` (an empty
    listing where there were files), `guard` (too many deletions: asking), `fetch` (some items
    could not be fetched), `unsafe` (some remote paths were refused)."""

    at: float
    added: int = 0
    changed: int = 0
    moved: int = 0
    removed: int = 0
    unchanged: int = 0
    skipped: int = 0
    problem: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the folder now matches the source."""
        return self.problem is None


@dataclass(frozen=True, slots=True)
class PendingDeletion:
    """Deletions a pass held back, waiting for an admin: exactly `paths` (relative to the
    source's folder) of `total` files. `token` is tied to that set: a confirmation carries it,
    and a set that changed since has another token, so it is asked again."""

    token: str
    paths: tuple[str, ...]
    total: int
    asked_at: float
    confirmed: bool = False

    @property
    def count(self) -> int:
        """How many files would be deleted."""
        return len(self.paths)


@dataclass(frozen=True, slots=True)
class Trouble:
    """A source failing, as its admins were told: since when (the first failed pass's time)
    and when they were last told (at first, then at each reminder)."""

    since: float
    told_at: float


@dataclass(slots=True)
class SourceState:
    """Everything kept for one source."""

    placed: dict[str, Placed] = field(default_factory=dict)
    last: PassReport | None = None
    last_success: float | None = None
    pending: PendingDeletion | None = None


def deletion_token(paths: frozenset[str] | set[str]) -> str:
    """A token for exactly this set of paths: the same set gives the same token."""
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(paths):
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()


class StateStore:
    """The state files of every source, in one folder (DATA_DIR/sources)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, name: str) -> Path:
        """The state file of source `name` (names are checked by the sources file)."""
        return self.folder / f"{name}.json"

    def load(self, name: str) -> SourceState:
        """The state of `name`; empty when there is none or it cannot be read."""
        path = self.path(name)
        try:
            data = json.loads(path.read_text("utf-8"))
            return _state(data)
        except FileNotFoundError:
            return SourceState()
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning(
                "source %s: its state %s cannot be read (%s); every item is fetched again",
                name,
                path,
                type(exc).__name__,
            )
            return SourceState()

    def save(self, name: str, state: SourceState) -> None:
        """Write the state of `name` whole, replacing the old one in one step."""
        _write(self.path(name), _data(state))

    def told_path(self, name: str) -> Path:
        """Where the trouble the admins were told of is kept (a folder of its own: a source's
        name may hold dots, so no suffix beside the state files could be told apart)."""
        return self.folder / ".told" / f"{name}.json"

    def trouble(self, name: str) -> Trouble | None:
        """The trouble of `name` the admins were told of; None when none (or unreadable:
        at worst they are told once more)."""
        path = self.told_path(name)
        try:
            data = json.loads(path.read_text("utf-8"))
            return Trouble(float(data["since"]), float(data["told_at"]))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("source %s: %s cannot be read (%s)", name, path, type(exc).__name__)
            return None

    def keep_trouble(self, name: str, trouble: Trouble | None) -> None:
        """Keep (or, None, forget) the trouble of `name` the admins were told of."""
        path = self.told_path(name)
        if trouble is None:
            path.unlink(missing_ok=True)
        else:
            _write(path, asdict(trouble))


def _write(path: Path, data: dict[str, Any]) -> None:
    """Write `data` to `path` whole, replacing the old file in one step."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with temp.open("w", encoding="utf-8") as out:
            json.dump(data, out, ensure_ascii=False, separators=(",", ":"))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _data(state: SourceState) -> dict[str, Any]:
    return {
        "version": _VERSION,
        "placed": {
            path: [p.item_id, p.version, p.size, p.content_hash, p.local_size, p.local_mtime_ns]
            for path, p in state.placed.items()
        },
        "last": asdict(state.last) if state.last is not None else None,
        "last_success": state.last_success,
        "pending": asdict(state.pending) if state.pending is not None else None,
    }


def _state(data: dict[str, Any]) -> SourceState:
    if data.get("version") != _VERSION:
        msg = "unknown version"
        raise ValueError(msg)
    placed = {
        str(path): Placed(str(i), str(v), int(s), None if h is None else str(h), int(ls), int(lm))
        for path, (i, v, s, h, ls, lm) in data["placed"].items()
    }
    last = data.get("last")
    pending = data.get("pending")
    success = data.get("last_success")
    return SourceState(
        placed=placed,
        last=PassReport(**last) if last else None,
        last_success=float(success) if success is not None else None,
        pending=(
            PendingDeletion(
                token=str(pending["token"]),
                paths=tuple(str(p) for p in pending["paths"]),
                total=int(pending["total"]),
                asked_at=float(pending["asked_at"]),
                confirmed=bool(pending.get("confirmed", False)),
            )
            if pending
            else None
        ),
    )

"""list_files: a folder's visible entries, folders first, capped, with file counts."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tools.errors import ExtractionError
from tools.jail.sandbox import Entry, Sandbox
from tools.paths import modified_iso

MAX_ENTRIES = 200


def _file_counts(snapshot: dict[str, tuple[int, int]]) -> Counter[str]:
    """Files below each folder (at any depth), from one pass over the snapshot."""
    counts: Counter[str] = Counter()
    for path in snapshot:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            counts["/".join(parts[:i])] += 1
    return counts


def list_folder(
    sandbox: Sandbox,
    path: str,
    depth: int,
    snapshot: dict[str, tuple[int, int]] | None,
    cap: int = MAX_ENTRIES,
) -> dict[str, Any]:
    """Entries under `path` down to `depth` levels, in tree order (blocking).

    `snapshot` is the indexer's latest map of visible files, used to count files in folders
    without walking them again; None walks instead.
    """
    real = sandbox.resolve(path)
    rel = sandbox.relative(real)
    if not real.is_dir():
        raise ExtractionError(f"'{rel}' is a file, not a folder", "Use read_file to read it.")
    entries: list[dict[str, Any]] = []
    total = 0
    counts = _file_counts(snapshot) if snapshot is not None else None

    def visit(folder: str, level: int) -> None:
        nonlocal total
        try:
            found = sandbox.scan(folder, strict=level == 1)
        except PermissionError:
            raise ExtractionError(f"permission to open '{rel}' is denied") from None
        except OSError:
            raise ExtractionError(f"'{rel}' cannot be opened") from None
        found.sort(key=lambda e: (not e.is_dir, e.rel.casefold()))
        for e in found:
            total += 1
            if len(entries) < cap:
                entries.append(_describe(sandbox, e, counts))
            if e.is_dir and level < depth:
                visit(e.rel, level + 1)

    visit(rel, 1)
    result: dict[str, Any] = {
        "path": rel,
        "entries": entries,
        "total": total,
        "truncated": total > len(entries),
    }
    if not entries:
        result["hint"] = "This folder has no documents."
    elif total > len(entries):
        result["hint"] = "Too many entries: list a subfolder, or use search_files."
    return result


def _describe(sandbox: Sandbox, e: Entry, counts: Counter[str] | None) -> dict[str, Any]:
    if e.is_dir:
        files = (
            counts[e.rel]
            if counts is not None
            else sum(1 for f in sandbox.walk(e.rel) if not f.is_dir)
        )
        return {
            "path": e.rel,
            "type": "dir",
            "files": files,
            "modified": modified_iso(e.mtime_ns),
        }
    return {"path": e.rel, "type": "file", "size": e.size, "modified": modified_iso(e.mtime_ns)}

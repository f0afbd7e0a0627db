"""list_files: a folder's visible entries, folders first, capped, with file counts."""

from __future__ import annotations

from typing import Any

from tools.errors import ExtractionError
from tools.sandbox import Entry, Sandbox
from tools.search import modified_iso

MAX_ENTRIES = 200


def _count_files(sandbox: Sandbox, rel: str, snapshot: dict[str, tuple[int, int]] | None) -> int:
    if snapshot is not None:
        prefix = rel + "/"
        return sum(1 for p in snapshot if p.startswith(prefix))
    return sum(1 for e in sandbox.walk(rel) if not e.is_dir)


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
                entries.append(_describe(sandbox, e, snapshot))
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


def _describe(
    sandbox: Sandbox, e: Entry, snapshot: dict[str, tuple[int, int]] | None
) -> dict[str, Any]:
    if e.is_dir:
        return {
            "path": e.rel,
            "type": "dir",
            "files": _count_files(sandbox, e.rel, snapshot),
            "modified": modified_iso(e.mtime_ns),
        }
    return {"path": e.rel, "type": "file", "size": e.size, "modified": modified_iso(e.mtime_ns)}

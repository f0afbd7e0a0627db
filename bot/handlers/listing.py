"""The `/files` overview: top folders with their file counts and a few files each."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from html import escape
from itertools import islice

from bot.names import visible
from tools.sandbox import Entry, Sandbox

_FILES_PER_FOLDER = 5
_MAX_LINES = 50
_MAX_ENTRIES = 50_000


@dataclass(frozen=True, slots=True)
class Overview:
    """HTML lines to show, how many lines did not fit, and how many files there are."""

    lines: list[str]
    more: int
    files: int


def scan(sandbox: Sandbox) -> list[Entry]:
    """Visible entries of the sandbox, bounded so a huge folder cannot stall the reply."""
    return list(islice(sandbox.walk(), _MAX_ENTRIES))


def overview(entries: list[Entry]) -> Overview:
    """Folders first (with their file counts and first files), then files at the top level."""
    files = [e.rel for e in entries if not e.is_dir]
    per_top: Counter[str] = Counter(rel.split("/", 1)[0] for rel in files if "/" in rel)
    folders = sorted({e.rel for e in entries if e.is_dir and "/" not in e.rel}, key=str.casefold)
    lines: list[str] = []
    for folder in folders:
        lines.append(f"📁 <b>{escape(visible(folder))}/</b> ({per_top.get(folder, 0)})")
        inside = sorted((rel for rel in files if rel.startswith(folder + "/")), key=str.casefold)
        lines += [
            f"    📄 {escape(visible(rel[len(folder) + 1 :]))}"
            for rel in inside[:_FILES_PER_FOLDER]
        ]
        if len(inside) > _FILES_PER_FOLDER:
            lines.append(f"    … +{len(inside) - _FILES_PER_FOLDER}")
    lines += [
        f"📄 {escape(visible(rel))}"
        for rel in sorted((r for r in files if "/" not in r), key=str.casefold)
    ]
    return Overview(lines[:_MAX_LINES], max(0, len(lines) - _MAX_LINES), len(files))

"""The `/files` overview: files at the top level, then folders with their counts and a few files.

The message has a line budget. Folders are shown whole (header and its first files) or not at
all, so a header never dangles; top-level files come first with a share of the budget of their
own, so they are never crowded out. What does not fit is counted in files, not lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from itertools import islice

from bot.telegram.texts.names import visible
from tools.jail.sandbox import Entry, Sandbox

FILES_PER_FOLDER = 5
MAX_LINES = 50
ROOT_FILES_SHARE = 15
_MAX_ENTRIES = 50_000


@dataclass(frozen=True, slots=True)
class Overview:
    """HTML lines to show, how many files are not mentioned at all, and how many there are."""

    lines: list[str]
    hidden_files: int
    files: int


def scan(sandbox: Sandbox) -> list[Entry]:
    """Visible entries of the sandbox, bounded so a huge folder cannot stall the reply."""
    return list(islice(sandbox.walk(), _MAX_ENTRIES))


def _folder_block(folder: str, inside: list[str], more: Callable[[int], str]) -> list[str]:
    lines = [f"📁 <b>{escape(visible(folder))}/</b> ({len(inside)})"]
    lines += [
        f"    📄 {escape(visible(rel[len(folder) + 1 :]))}" for rel in inside[:FILES_PER_FOLDER]
    ]
    if len(inside) > FILES_PER_FOLDER:
        lines.append("    " + more(len(inside) - FILES_PER_FOLDER))
    return lines


def overview(
    entries: list[Entry], more_in_folder: Callable[[int], str], max_lines: int = MAX_LINES
) -> Overview:
    """Top-level files (up to their share), then whole folder blocks while they fit."""
    files = sorted((e.rel for e in entries if not e.is_dir), key=str.casefold)
    root_files = [rel for rel in files if "/" not in rel]
    by_folder: dict[str, list[str]] = {}
    for rel in files:
        if "/" in rel:
            by_folder.setdefault(rel.split("/", 1)[0], []).append(rel)
    for entry in entries:  # empty folders are worth a line too
        if entry.is_dir and "/" not in entry.rel:
            by_folder.setdefault(entry.rel, [])
    shown_root = root_files[: min(ROOT_FILES_SHARE, max_lines)]
    lines = [f"📄 {escape(visible(rel))}" for rel in shown_root]
    hidden = len(root_files) - len(shown_root)
    for folder in sorted(by_folder, key=str.casefold):
        block = _folder_block(folder, by_folder[folder], more_in_folder)
        if len(lines) + len(block) <= max_lines:
            lines += block
        else:
            hidden += len(by_folder[folder])
    return Overview(lines, hidden, len(files))

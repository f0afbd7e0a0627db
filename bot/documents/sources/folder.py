"""A source's folder on disk: which remote paths may be written there, and what it holds now.

A remote path is the source's to choose, so it is checked before anything is written: no
absolute path, no `..` or empty part, no control character, no part too long for the file
system, nothing that is not UTF-8. Hidden parts (a dot name) are skipped quietly, like every
hidden name in the documents folder: the tools would never show them. What is written is then
placed through the jail (`tools.jail.sandbox.Sandbox` on the source's folder), which also
refuses a path that a link in the folder would lead outside it.

The scan lists the visible files (and links) below the folder, which the source owns: what the
listing lacks is deleted. Hidden names are left alone, except the mirror's own staged downloads
left by a crash (`.<name>.part-<hex>`), which are removed.

Everything here is blocking file work; callers run it in a thread.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from pathlib import Path

from bot.documents.sources.plan import Local
from tools.jail.sandbox import MAX_PART_BYTES, MAX_PATH_CHARS, is_hidden_name

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_STAGED = re.compile(r"\..*\.part-[0-9a-f]{8}", re.DOTALL)
_STAGE_NAME_CHARS = 80


def refused(path: str) -> str | None:
    """Why a remote path cannot be placed (`hidden` for a dot name), None when it can."""
    parts = path.split("/")
    checks = (
        (not path or path.startswith("/") or "\\" in path, "absolute or malformed"),
        (len(path) > MAX_PATH_CHARS, "too long"),
        (_CONTROL.search(path) is not None, "a control character"),
        (not _utf8(path), "not UTF-8"),
        (any(part in ("", ".", "..") for part in parts), "'..' or an empty part"),
        (
            any(len(part.encode("utf-8", "replace")) > MAX_PART_BYTES for part in parts),
            "a name too long",
        ),
        (any(is_hidden_name(part) for part in parts), "hidden"),
    )
    return next((reason for failed, reason in checks if failed), None)


def stage_name(final: Path) -> Path:
    """Where a download of `final` is written first: a dot name beside it, never seen."""
    return final.with_name(f".{final.name[:_STAGE_NAME_CHARS]}.part-{secrets.token_hex(4)}")


def scan(folder: Path) -> dict[str, Local]:
    """The visible files below `folder` by relative path; leftover staged downloads removed.

    Links count as files (of their own size) and are never followed, so a link to a folder
    elsewhere is not walked. A name that is not UTF-8 is left out: no listing can name it.
    """
    found: dict[str, Local] = {}
    stack = [""]
    while stack:
        current = stack.pop()
        base = folder / current if current else folder
        try:
            with os.scandir(base) as entries:
                listed = list(entries)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in listed:
            name = entry.name
            if is_hidden_name(name):
                if _STAGED.fullmatch(name) and entry.is_file(follow_symlinks=False):
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
                continue
            if not _utf8(name):
                continue
            rel = f"{current}/{name}" if current else name
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                stack.append(rel)
            elif stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
                found[rel] = Local(st.st_size, st.st_mtime_ns)
    return found


def prune_empty(folder: Path, paths: list[str]) -> None:
    """Remove the folders `paths` left empty below `folder` (never `folder` itself)."""
    for path in paths:
        parent = (folder / path).parent
        while parent != folder and folder in parent.parents:
            try:
                parent.rmdir()
            except OSError:  # not empty (or gone): the folders above are not empty either
                break
            parent = parent.parent


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True

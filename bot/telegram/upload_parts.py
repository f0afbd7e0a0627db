"""The hidden files uploads are written to before they get their name, and their clean-up.

An upload cut short by a crash or a kill leaves its `.upload-*.part` file behind. The tools
never see it (hidden names are invisible), but it holds disk space, so start-up removes the
ones old enough that no upload can still be writing them.
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from pathlib import Path

log = logging.getLogger(__name__)

_PREFIX = ".upload-"
_SUFFIX = ".part"
ABANDONED_AFTER_S = 3_600.0


def part_path(folder: Path) -> Path:
    """A fresh hidden temp name in `folder` for an upload being written."""
    return folder / f"{_PREFIX}{secrets.token_hex(8)}{_SUFFIX}"


def remove_abandoned(root: Path, *, older_than_s: float = ABANDONED_AFTER_S) -> int:
    """Delete upload temp files under `root` untouched for `older_than_s`; returns how many.

    Symlinked folders are not followed, so nothing outside the documents folder is touched.
    """
    cutoff = time.time() - older_than_s
    removed = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            if not (name.startswith(_PREFIX) and name.endswith(_SUFFIX)):
                continue
            path = Path(folder, name)
            try:
                if path.lstat().st_mtime < cutoff:
                    path.unlink()
                    removed += 1
            except OSError as exc:
                log.warning("could not remove an abandoned upload %s: %s", name, exc.strerror)
    if removed:
        log.info("removed %d upload(s) left unfinished by an earlier run", removed)
    return removed

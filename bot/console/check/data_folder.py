"""Whether the bot can keep its own files in DATA_DIR: there or creatable, writable, room left.

The check leaves nothing behind: a folder it had to create is removed again, since `run`
creates it anyway at start.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import suppress
from pathlib import Path

from bot.console.check.outcome import Outcome, failed, passed, shown

SUBJECT = "data folder"
LOW_SPACE_BYTES = 100 * 1024 * 1024  # below this the history and the index soon stop growing


def check_data_folder(folder: Path) -> Outcome:
    """Create `folder` if needed, write and remove a file in it, and measure the free space."""
    name = shown(folder)
    if folder.exists() and not folder.is_dir():
        return failed(SUBJECT, f"{name} is a file, not a folder; move it or set DATA_DIR")
    missing = _missing_parts(folder)
    try:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return failed(SUBJECT, f"{name} cannot be created ({_reason(exc)})")
        try:
            handle, probe = tempfile.mkstemp(prefix=".check-", dir=folder)
            os.close(handle)
            os.unlink(probe)
        except OSError as exc:
            return failed(SUBJECT, f"{name} is not writable ({_reason(exc)})")
        free = shutil.disk_usage(folder).free
    finally:
        for part in missing:  # deepest first; a folder someone filled meanwhile stays
            with suppress(OSError):
                part.rmdir()
    state = "can be created and written" if missing else "writable"
    if free < LOW_SPACE_BYTES:
        return failed(SUBJECT, f"{name} {state}, but only {_size(free)} free")
    return passed(SUBJECT, f"{name} {state}, {_size(free)} free")


def _missing_parts(folder: Path) -> list[Path]:
    """The folders `mkdir(parents=True)` would create, deepest first."""
    missing = []
    part = folder.absolute()
    while not part.exists() and part != part.parent:
        missing.append(part)
        part = part.parent
    return missing


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _size(count: int) -> str:
    gb = count / 1024**3
    if gb >= 10:
        return f"{gb:.0f} GB"
    if gb >= 1:
        return f"{gb:.1f} GB"
    return f"{count / 1024**2:.0f} MB"

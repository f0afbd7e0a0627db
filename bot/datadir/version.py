"""One version number for everything in DATA_DIR, in `data_version.json`.

The stores each have their own SQLite file, written by different parts of the bot (and by
`python -m bot pair` from outside it); one small file beside them says which layout the whole
folder has, so an upgrade knows where to start, a backup records what it holds, and an older
bot can refuse newer data before it opens a single database. A folder with the bot's files but
no stamp was written before versions were kept: that is version 1.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from bot.process.data_files import DataFiles
from bot.process.version import bot_version

DATA_VERSION = 4
"""The layout this code reads and writes. 1: before versions were stamped; 2: the history
has an index of open turns; 3: notices know who subscribed a group, unanswered questions the
files read, usage the forum topic and whether its tokens were estimated; 4: usage the tokens
pictures took."""
UNSTAMPED = 1
"""The version of a DATA_DIR with the bot's files but no stamp."""


class DataVersionError(Exception):
    """DATA_DIR cannot be used by this bot as it is; the text says why and what to do."""


@dataclass(frozen=True, slots=True)
class Stamp:
    """What `data_version.json` says, or what a folder without it amounts to."""

    version: int | None
    """None for a folder that holds none of the bot's files (a new DATA_DIR)."""
    stamped: bool
    """Whether the file exists (else the version was inferred)."""


def read_stamp(files: DataFiles) -> Stamp:
    """The folder's data version; raises `DataVersionError` for a stamp that cannot be read."""
    try:
        text = files.data_version.read_text(encoding="utf-8")
    except FileNotFoundError:
        held = [p for p in files.private_files() if p.exists()]
        return Stamp(UNSTAMPED if held else None, stamped=False)
    except OSError as exc:
        msg = f"{files.data_version} cannot be read: {exc.strerror or exc}"
        raise DataVersionError(msg) from exc
    return Stamp(parse_version(text, files.data_version.name), stamped=True)


def parse_version(text: str, source: str) -> int:
    """The `data_version` in a stamp's or a backup manifest's JSON text."""
    try:
        value = json.loads(text).get("data_version")
    except (ValueError, AttributeError):
        value = None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        msg = f"{source} does not hold a data version (a positive whole number)"
        raise DataVersionError(msg)
    return value


def write_stamp(files: DataFiles, version: int) -> None:
    """Record `version` atomically: a crash leaves the old stamp or the new one, never half."""
    body = json.dumps({"data_version": version, "written_by": f"docs-bot {bot_version()}"})
    partial = files.data_version.with_name(files.data_version.name + ".partial")
    with partial.open("w", encoding="utf-8") as out:
        out.write(body + "\n")
        out.flush()
        os.fsync(out.fileno())
    partial.replace(files.data_version)


def refuse_newer(version: int, where: Path, current: int = DATA_VERSION) -> None:
    """Raise for data newer than `current` (this code's): reading it could corrupt it."""
    if version > current:
        msg = (
            f"{where} holds data version {version}, newer than this bot's {current} "
            f"(docs-bot {bot_version()}): it was written by a newer release. Run that release "
            "(or newer) with it, or point DATA_DIR at a backup taken before the upgrade; "
            "this bot leaves it untouched"
        )
        raise DataVersionError(msg)

"""Names from the documents folder as users see them, unable to disguise themselves.

A file name may hold bidi controls (U+202E shows "txt.exe" as "exe.txt") or line breaks, and a
model's tool arguments may too. Wherever the bot shows such a name to a user, each of those
characters is written out as a visible `\\uXXXX` escape instead of acting on the text. A path
too long for its line or button keeps its end (`tail`).
"""

from __future__ import annotations

import re

from tools.jsontext import BIDI_CONTROLS

_HIDDEN = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{BIDI_CONTROLS}]")


def visible(name: str) -> str:
    """`name` with control and bidi characters written out as `\\uXXXX`."""
    return _HIDDEN.sub(lambda found: f"\\u{ord(found.group()):04x}", name)


def tail(path: str, limit: int) -> str:
    """`path` in at most `limit` characters, its end kept (the name matters most)."""
    return path if len(path) <= limit else "…" + path[-(limit - 1) :]

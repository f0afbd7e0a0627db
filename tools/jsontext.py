"""The JSON text every tool result is written as: readable Cyrillic, no display tricks.

Shared by the toolbox, the cutters and the bot's name display, so the model and people read one
format whoever produced it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""A regex character-class body: marks and controls that reorder how text is displayed."""

_BIDI = re.compile(f"[{BIDI_CONTROLS}]")


def to_json(payload: Mapping[str, Any]) -> str:
    """JSON text for the model: readable Cyrillic, but bidi controls escaped so a file name
    cannot reorder what a person reading the result sees."""
    text = json.dumps(payload, ensure_ascii=False)
    return _BIDI.sub(lambda m: f"\\u{ord(m.group()):04x}", text)

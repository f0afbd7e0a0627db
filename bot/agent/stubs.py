"""A tool result an answer has already used, as a short stub: what was read where, not the text.

A page of a document costs thousands of tokens in every later request of a conversation, long
after the answer that needed it. The stub keeps what it takes to have it again: the path, the
lines and places a read covered and where it went on, the file names a search or a listing
found, and which tool gives the text back. The call itself stays beside the stub with its
arguments. Read from the text in the shapes the tools write (`tools.reading`, `tools.search`,
`tools.listing`), as `tools.cutting` does: results kept in the history arrive without their
result objects. A result already about as short as a stub (an error, a small listing) stays
as it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from tools.extract.places import marker_place
from tools.jsontext import to_json

KEEP_WHOLE = 400
"""Characters: a result this short (an error and its hint, an empty search) stays whole."""
NAMES = 20
"""File names a stub keeps of a search or a listing; the rest are counted."""
PLACES = 12
"""Places (pages, sheets, slides) a read's stub names inside the page read."""
_SHORT = 120
"""A text field of an unknown shape is kept when it is this short (a path, a note)."""
_READ_FIELDS = ("path", "start_line", "end_line", "total_lines", "next_offset", "place")
_NUMBERED = re.compile(r"\s*\d+\| ")
_NOTE = (
    "the text of this result was left out to save room (an earlier question used it); "
    "call {tool} again with the same arguments to see it"
)


def stub_result(content: str, tool: str = "") -> str:
    """`content` as a short stub naming what it held, or itself when that is no shorter."""
    if len(content) <= KEEP_WHOLE:
        return content
    stub = _stub(content, _NOTE.format(tool=tool or "the tool"))
    return stub if len(stub) < len(content) else content


def _stub(content: str, note: str) -> str:
    try:
        parsed = json.loads(content)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        return to_json({"left_out": note})
    if isinstance(parsed.get("document"), str) and isinstance(parsed.get("end_line"), int):
        return to_json({"left_out": note, **_read(parsed)})
    for key in ("results", "entries"):
        if isinstance(parsed.get(key), list):
            return to_json({"left_out": note, **_listed(parsed, key)})
    return to_json({"left_out": note, **_scalars(parsed)})


def _read(page: Mapping[str, Any]) -> dict[str, Any]:
    """A page read: its path, the lines it covered, where it went on, the places it crossed."""
    kept = {k: page[k] for k in _READ_FIELDS if page.get(k) is not None}
    places: list[str] = []
    for line in str(page["document"]).split("\n"):
        numbered = _NUMBERED.match(line)
        if numbered is None:
            continue
        place = marker_place(line[numbered.end() :])
        if place is not None and place.text not in places:
            places.append(place.text)
    if places:
        kept["places"] = places[:PLACES]
    return kept


def _listed(payload: Mapping[str, Any], key: str) -> dict[str, Any]:
    """A search's or a listing's file names (the first `NAMES`), and how many there were."""
    items = payload[key]
    names = [str(i.get("path") or "") if isinstance(i, Mapping) else str(i) for i in items]
    names = [n for n in names if n]
    kept: dict[str, Any] = {}
    if isinstance(payload.get("path"), str):
        kept["path"] = payload["path"]
    kept["paths"] = names[:NAMES]
    total = payload.get("total")
    kept["total"] = total if isinstance(total, int) else len(items)
    return kept


def _scalars(payload: Mapping[str, Any]) -> dict[str, Any]:
    """An object of no known shape: its numbers and short texts (a path, a place, an error)."""
    return {
        k: v
        for k, v in payload.items()
        if k != "left_out"
        and (
            v is None
            or isinstance(v, bool | int | float)
            or (isinstance(v, str) and len(v) <= _SHORT)
        )
    }

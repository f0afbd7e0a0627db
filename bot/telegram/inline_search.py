"""The documents an inline query (`@bot words` typed in any chat) finds, kept a short while.

The search is the index's keyword search, the one `search_files` runs, within the scope the
asker's private chat has: nothing outside it is ranked, counted or cut into a snippet. No model
is asked (not even for an embedding): an inline answer must come back while the user types, so
search by meaning stays with questions.

Telegram sends a query for every pause in typing, and the same words again when the user
returns to them; `InlineSearch` keeps what each (user, words, scope) found for `ttl_s`, at most
`capacity` entries, oldest out first, and drops an entry as soon as the documents folder
changed (the indexer replaces its snapshot of the folder on every change). What is kept is
whatever the caller made of the hits (the results with their deep-link ids), so a repeated
query costs neither a search nor a write.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Generic, TypeVar

from tools import Toolbox
from tools.errors import ToolError
from tools.extract.places import heading_place, marker_place
from tools.jail.scope import Scope

MAX_RESULTS = 10
"""Documents an inline answer lists: a phone shows a few, and each costs a deep-link id."""
TTL_S = 60.0
CAPACITY = 1024
MAX_QUERY_CHARS = 256
"""Telegram's own limit on an inline query."""


@dataclass(frozen=True, slots=True)
class FoundDocument:
    """One document an inline query found: where it is, and the line that matched."""

    path: str
    """Relative to the documents folder."""
    snippet: str = ""
    """The first matching line, cut short; empty when only the name matched."""
    place: str | None = None
    """The snippet's place as the tools write it ("page 12", "sheet «Budget»"), if any."""

    @property
    def name(self) -> str:
        return PurePosixPath(self.path).name or self.path

    @property
    def folder(self) -> str:
        """The folder it lies in; empty at the top of the documents folder."""
        parent = str(PurePosixPath(self.path).parent)
        return "" if parent == "." else parent


def found_in(payload: Mapping[str, Any]) -> list[FoundDocument]:
    """The documents of one search result, best first, each with the snippet it shows."""
    found = []
    for item in payload.get("results") or ():
        shown = _shown_snippet(item.get("snippets") or ())
        place = shown.get("place")
        found.append(
            FoundDocument(
                path=str(item["path"]),
                snippet=str(shown.get("text") or ""),
                place=str(place) if place else None,
            )
        )
    return found


def _shown_snippet(snippets: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The first snippet that is a line of text, not a heading or a place marker (those only
    repeat the place); else the first; empty when there is none."""
    for snippet in snippets:
        line = str(snippet.get("text") or "").lstrip("…")
        if heading_place(line) is None and marker_place(line) is None:
            return snippet
    return snippets[0] if snippets else {}


CacheKey = tuple[int, str, Scope | None]
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class _Kept(Generic[V]):
    value: V
    folder: object
    """The indexer's snapshot of the folder it was made from (compared by identity)."""
    at: float


class InlineSearch(Generic[V]):
    """Searches for inline queries and keeps what each one made (`V`), per user, words and
    scope."""

    def __init__(
        self,
        toolbox: Toolbox,
        *,
        limit: int = MAX_RESULTS,
        ttl_s: float = TTL_S,
        capacity: int = CAPACITY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._toolbox = toolbox
        self._limit = limit
        self._ttl = ttl_s
        self._capacity = capacity
        self._clock = clock
        self._kept: OrderedDict[CacheKey, _Kept[V]] = OrderedDict()

    async def search(self, query: str, scope: Scope | None) -> list[FoundDocument]:
        """The best documents for `query` within `scope` (None: the whole folder)."""
        words = normalized(query)
        if not words:
            return []
        return await asyncio.to_thread(self._search, words, scope)

    async def kept(
        self,
        user_id: int,
        query: str,
        scope: Scope | None,
        make: Callable[[Sequence[FoundDocument]], Awaitable[V]],
    ) -> V:
        """What `make` made of this query's documents for this user, kept from a recent
        identical query when the folder has not changed since; else searched and made now."""
        key = (user_id, normalized(query), scope)
        folder = self._toolbox.visible_files(None)
        now = self._clock()
        kept = self._kept.get(key)
        if kept is not None and kept.folder is folder and now - kept.at <= self._ttl:
            self._kept.move_to_end(key)
            return kept.value
        value = await make(await self.search(query, scope))
        self._kept[key] = _Kept(value, folder, now)
        self._kept.move_to_end(key)
        while len(self._kept) > self._capacity:
            self._kept.popitem(last=False)
        return value

    def _search(self, words: str, scope: Scope | None) -> list[FoundDocument]:
        from tools.search import Within  # noqa: PLC0415 - the engine loads at first search

        toolbox = self._toolbox
        within = None if scope is None else Within(scope.folders, toolbox.allowed_files(scope))
        try:
            payload = toolbox.searcher.search(words, self._limit, within=within)
        except ToolError:  # no word to search for (only punctuation): nothing is found
            return []
        return found_in(payload)


def normalized(query: str) -> str:
    """The words of a query as they are searched and kept: spaces collapsed, case kept (the
    search folds it), cut to Telegram's limit."""
    return " ".join(query[:MAX_QUERY_CHARS].split())

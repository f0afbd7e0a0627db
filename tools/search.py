"""search_files: words and name globs against the index, best first, with line snippets.

Ranking: documents holding every query word come first, then those holding some, each group by
BM25 with names weighted above contents. A word the index has never seen is widened to close
words from the index vocabulary (a typo) and to words it begins (a cut-off word).

A search within a scope names the documents it may see (`allowed`); the index query itself
filters on them (`in_scope`), so ranking, limits and totals count the allowed documents only
and nothing outside is ever ranked, counted or cut into a snippet.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from typing import Any

from tools.errors import ToolError
from tools.globs import FoldedNames, glob_match
from tools.index import is_damaged, load_text
from tools.indexer import Indexer
from tools.languages import LANGUAGE_NAMES, languages_of
from tools.paths import modified_iso
from tools.snippets import find_snippets, snippets_from_start
from tools.sqlite import sqlite as sqlite3
from tools.terms import STOP_WORDS, TOP_MARK, Stemmer, fold, words

NAME_WEIGHT = 8.0
SNIPPET_WINDOW = 32 * 1024  # bytes inflated first: the words are usually near the start
VOCAB_TTL = 20.0
MIN_ROOT = 5
MAX_WORDS = 16
RANK_ALL = 8_000
_GLOB = re.compile(r"[*?\[]")
_DOCUMENT_TYPES = "txt md markdown csv tsv json html htm xml pdf docx doc log yaml yml ini rst"
_NAMED_FILE = re.compile(rf"^(.+)\.({_DOCUMENT_TYPES.replace(' ', '|')})$", re.IGNORECASE)
_IN_SCOPE = "in_scope"
"""The SQL function a scoped search registers on its connection: is this path allowed."""


def split_query(query: str) -> tuple[list[str], list[str]]:
    """Words and name globs of a query. A word written as a file name (`шарлотка.txt`) is its
    words plus a name filter (`*.txt`): the extension says what kind of file, not a word the
    text holds. Names of different types filter nothing (globs must all match)."""
    plain: list[str] = []
    globs: list[str] = []
    types: set[str] = set()
    for token in query.split():
        if _GLOB.search(token):
            globs.append(fold(token))
            continue
        named = _NAMED_FILE.match(token)
        if named and words(named.group(1)):
            types.add(f"*.{fold(named.group(2))}")
            plain.extend(words(named.group(1)))
        else:
            plain.extend(words(token))
    return plain, globs + sorted(types) if len(types) == 1 else globs


@dataclass
class _Group:
    """One query word: its stem and the index terms accepted for it."""

    word: str
    stem: str
    terms: list[str] = field(default_factory=list)
    prefix: bool = False

    def fts(self, mark: str = "") -> str:
        alts = [f'"{mark}{t}"' for t in self.terms]
        if self.prefix:
            alts.append(f'"{mark}{self.stem}"*')
        return "(" + " OR ".join(alts) + ")" if len(alts) > 1 else alts[0]

    def about(self) -> str:
        """The word in a document's name or among its most frequent terms (the `top` column
        holds both, marked). The plain match comes first and `top` weighs nothing, so such a
        document scores exactly as it would among all matches."""
        return f"({self.fts()} AND {self.fts(TOP_MARK)})"

    def pattern(self) -> str:
        forms = {self.word, self.stem, *self.terms}
        forms |= {f[:-1] for f in forms if len(f) > 4 and f.endswith("i")}
        return "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True) if f)


class Searcher:
    """Runs queries against the index (blocking; call from a worker thread)."""

    def __init__(self, indexer: Indexer, stemmer: Stemmer, *, rank_all: int = RANK_ALL) -> None:
        self.indexer = indexer
        self.stemmer = stemmer
        self.rank_all = rank_all
        self._vocab: list[str] = []
        self._vocab_at = -VOCAB_TTL
        self._names = FoldedNames({})

    def _names_for(self, visible: dict[str, tuple[int, int]]) -> FoldedNames:
        """Folded names of the visible files, rebuilt only when the folder changed."""
        names = self._names
        if names.source is not visible:
            names = self._names = FoldedNames(visible)
        return names

    def search(
        self, query: str, limit: int, *, allowed: frozenset[str] | None = None
    ) -> dict[str, Any]:
        """The best `limit` documents for `query`; with `allowed`, among those paths only."""
        plain, globs = split_query(query)
        meaningful = ([w for w in plain if w not in STOP_WORDS] or plain)[:MAX_WORDS]
        if not globs and not meaningful:
            raise ToolError("the query has no words to search for", "Use a few keywords.")
        try:
            with self.indexer.readers.connection() as conn:
                if allowed is not None:
                    conn.create_function(_IN_SCOPE, 1, allowed.__contains__, deterministic=True)
                found = self._run(conn, meaningful, globs, limit, allowed)
        except sqlite3.Error as exc:
            if is_damaged(exc):
                self.indexer.mark_broken()
            found = self._run(None, meaningful, globs, limit, allowed)  # names still answer
        return found

    def _run(
        self,
        conn: sqlite3.Connection | None,
        plain: list[str],
        globs: list[str],
        limit: int,
        allowed: frozenset[str] | None,
    ) -> dict[str, Any]:
        state = self.indexer.state
        current = state.visible
        scoped = allowed is not None
        visible = dict(current) if allowed is None else {p: current[p] for p in allowed}
        groups = [self._group(conn, w, scoped=scoped) for w in dict.fromkeys(plain)]
        ranked: list[tuple[str, int | None]] = []
        total = 0
        if groups and conn is not None:
            ranked, total = self._ranked(conn, groups, globs, limit, scoped=scoped)
        if globs and not groups:
            names = self._names_for(current).matching(globs)
            ranked = [(p, None) for p in names if p in visible]
            total = len(ranked)
        warming = not state.ready or conn is None
        if warming and groups:
            seen = {p for p, _ in ranked}
            wanted = [{*g.terms, g.stem} for g in groups]
            for path in sorted(visible):
                if path in seen or (path in state.known and conn is not None):
                    continue
                stems = set(self.stemmer.name_terms(path))
                if any(w & stems for w in wanted) and glob_match(path, globs):
                    ranked.append((path, None))
                    total += 1
        pattern = snippet_pattern(groups) if groups else None
        shown = [(path, rowid) for path, rowid in ranked if path in visible][:limit]
        results = [
            self._describe(conn, path, rowid, groups=groups, visible=visible, pattern=pattern)
            for path, rowid in shown
        ]
        out: dict[str, Any] = {
            "results": results,
            "total": max(total, len(results)),
            "truncated": total > len(results),
        }
        if warming:
            out["note"] = (
                "the search index is still being built: contents of some files are not "
                "searchable yet, names are"
            )
        if not results:
            out["hint"] = (
                "Nothing matched. Try fewer or other words, another word form or a synonym, "
                "a name pattern such as *.pdf, or list_files to browse."
            )
            # The vocabulary is the whole index's: within a scope it would speak of documents
            # outside it, so a scoped search leaves the languages out.
            languages = languages_of(self._vocabulary(conn)) if conn and not scoped else []
            if languages:
                out["document_languages"] = languages
                out["hint"] += (
                    " The documents are written in "
                    + " and ".join(LANGUAGE_NAMES[code] for code in languages)
                    + ": search in that language too (translate the words)."
                )
        return out

    def _group(self, conn: sqlite3.Connection | None, word: str, *, scoped: bool) -> _Group:
        """The index terms accepted for one query word.

        A word the index lacks is widened step by step: close spellings (a typo), words it
        begins (a cut-off word), then words sharing a shorter root, which links derived
        forms such as "командировочные" and "командировка".
        """
        stem = self.stemmer.stem(word)
        group = _Group(word, stem, [stem])
        if conn is None or self._matches(conn, f'"{stem}"', scoped=scoped):
            return group
        if len(word) >= 5:
            group.terms += self._close_terms(conn, stem)
        group.prefix = len(stem) >= 3
        if self._matches(conn, group.fts(), scoped=scoped):
            return group
        shortest = max(MIN_ROOT, math.ceil(len(word) * 0.6))
        for end in range(len(stem) - 1, shortest - 1, -1):
            if self._matches(conn, f'"{stem[:end]}"*', scoped=scoped):
                group.stem = stem[:end]
                break
        return group

    @staticmethod
    def _matches(conn: sqlite3.Connection, match: str, *, scoped: bool) -> bool:
        """Whether any (allowed) document matches (cheaper than counting them all)."""
        if scoped:
            row = conn.execute(
                "SELECT 1 FROM terms JOIN files f ON f.id = terms.rowid "
                f"WHERE terms MATCH ? AND {_IN_SCOPE}(f.path) LIMIT 1",
                (match,),
            )
        else:
            row = conn.execute("SELECT 1 FROM terms WHERE terms MATCH ? LIMIT 1", (match,))
        return row.fetchone() is not None

    def _vocabulary(self, conn: sqlite3.Connection) -> list[str]:
        """Every term of the index, re-read at most every `VOCAB_TTL` seconds."""
        now = time.monotonic()
        if now - self._vocab_at > VOCAB_TTL:
            self._vocab = [row[0] for row in conn.execute("SELECT term FROM vocab")]
            self._vocab_at = now
        return self._vocab

    def _close_terms(self, conn: sqlite3.Connection, stem: str) -> list[str]:
        """Index terms one edit away (two for long words): the typo the user likely made.

        Swapped neighbours count as one edit ("отупск" for "отпуск").
        """
        from rapidfuzz import process  # noqa: PLC0415 - loaded at the first typo, not at start
        from rapidfuzz.distance import OSA  # noqa: PLC0415

        self._vocabulary(conn)
        max_edits = 1 if len(stem) < 8 else 2
        close = process.extract(
            stem, self._vocab, scorer=OSA.distance, score_cutoff=max_edits, limit=3
        )
        return [term for term, _, _ in close if term != stem and not term.isdigit()]

    def _ranked(
        self,
        conn: sqlite3.Connection,
        groups: list[_Group],
        globs: list[str],
        limit: int,
        *,
        scoped: bool,
    ) -> tuple[list[tuple[str, int | None]], int]:
        every = " AND ".join(g.fts() for g in groups)
        some = " OR ".join(g.fts() for g in groups)
        fetch = limit if not globs else max(limit * 20, 500)
        query = IndexQuery(conn, scoped=scoped, rank_all=self.rank_all)
        ranked: list[tuple[str, int | None]] = []
        seen: set[str] = set()
        tiers = [(every, " AND "), (some, " OR ")] if len(groups) > 1 else [(every, " AND ")]
        for match, joiner in tiers:
            floor = query.floor(match)
            if floor is None:
                found = query.ranked(match, fetch)
            else:  # common words: the documents about them, then the newest matches
                about = joiner.join(g.about() for g in groups)
                found = query.ranked(about, fetch, floor=query.floor(about))
                found += query.ranked(match, fetch, floor=floor)
            for path, rowid in found:
                if path not in seen and (not globs or glob_match(path, globs)):
                    seen.add(path)
                    ranked.append((path, rowid))
            if len(ranked) >= limit:
                break
        total = len(ranked) if globs else query.count(some)
        return ranked, total

    def _describe(
        self,
        conn: sqlite3.Connection | None,
        path: str,
        rowid: int | None,
        *,
        groups: list[_Group],
        visible: dict[str, tuple[int, int]],
        pattern: re.Pattern[str] | None,
    ) -> dict[str, Any]:
        size, mtime_ns = visible[path]
        names = set(self.stemmer.name_terms(path))
        match: list[str] = []
        if any(names & ({g.stem} | set(g.terms)) for g in groups) or not groups:
            match.append("name")
        snippets: list[dict[str, Any]] = []
        if rowid is not None and conn is not None and pattern is not None:
            head = load_text(conn, rowid, SNIPPET_WINDOW)
            found = snippets_from_start(head, pattern, len(groups))
            if found is None:
                found = find_snippets(load_text(conn, rowid), pattern, len(groups))
            snippets = found
            if snippets:
                match.append("content")
        item: dict[str, Any] = {
            "path": path,
            "size": size,
            "modified": modified_iso(mtime_ns),
            "match": match or ["content"],
        }
        if snippets:
            item["snippets"] = snippets
        return item


def snippet_pattern(groups: list[_Group]) -> re.Pattern[str]:
    """One regex for all query words; the named group tells which word matched."""
    alts = [f"(?P<g{i}>{g.pattern()})" for i, g in enumerate(groups)]
    return re.compile(r"(?<![^\W_])(?:" + "|".join(alts) + ")")


class IndexQuery:
    """The index queries of one search, within its scope (`in_scope`) when it has one.

    Scoring a match costs microseconds, so a word found in most of 100,000 documents would
    cost far more than the search may take. A query is scored over all its matches only up
    to `RANK_ALL` of them; beyond that, over the `RANK_ALL` newest documents that have the
    words in their name or among their most frequent terms (`Stemmer.bag`), then over the
    newest matches: both bounded, and the first ones are what a reader would pick.
    """

    def __init__(
        self, conn: sqlite3.Connection, *, scoped: bool, rank_all: int = RANK_ALL
    ) -> None:
        self.conn = conn
        self.rank_all = rank_all
        self.source = "terms JOIN files f ON f.id = terms.rowid" if scoped else "terms"
        self.only = f" AND {_IN_SCOPE}(f.path)" if scoped else ""

    def floor(self, match: str) -> int | None:
        """The lowest rowid among the newest `rank_all` matches; None when there are fewer."""
        row = self.conn.execute(
            f"SELECT terms.rowid FROM {self.source} WHERE terms MATCH ?{self.only} "
            "ORDER BY terms.rowid DESC LIMIT 1 OFFSET ?",
            (match, self.rank_all),
        ).fetchone()
        return None if row is None else int(row[0]) + 1

    def ranked(self, match: str, fetch: int, *, floor: int | None = None) -> list[tuple[str, int]]:
        """The best `fetch` matches (from rowid `floor` on) by BM25, names weighted above
        contents, as (path, rowid)."""
        scored = (
            f"SELECT terms.rowid AS id, bm25(terms, {NAME_WEIGHT}, 1.0, 0.0) AS score "
            f"FROM {self.source} WHERE terms MATCH ? AND terms.rowid >= ?{self.only} "
            "ORDER BY score LIMIT ?"
        )
        sql = f"SELECT f.path, f.id FROM ({scored}) s JOIN files f ON f.id = s.id ORDER BY s.score"
        rows = self.conn.execute(sql, (match, floor or 0, fetch))
        return [(str(path), int(rowid)) for path, rowid in rows]

    def count(self, match: str) -> int:
        """How many documents match."""
        sql = f"SELECT count(*) FROM {self.source} WHERE terms MATCH ?{self.only}"
        return int(self.conn.execute(sql, (match,)).fetchone()[0])

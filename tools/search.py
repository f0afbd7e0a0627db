"""search_files: words and name globs against the index, best first, with line snippets.

Ranking: documents holding every query word come first, then those holding some, each group by
BM25 with names weighted above contents. A word the index has never seen is widened to close
words of the index (a typo) and to words it begins (a cut-off word).

A search within a scope (`Within`) filters inside the index query by the scope's folders, so
ranking, limits and totals count the allowed documents only and nothing outside is ever ranked,
counted or cut into a snippet. Globs are part of the same query (over the folded path and
name), so they cost the index a lookup, not a pass over every name.

While the first build runs, files not yet indexed are still found by name.
"""

from __future__ import annotations

import contextlib
import math
import re
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import tantivy

from tools.errors import ToolError
from tools.index.globs import FoldedNames, glob_match, glob_regex
from tools.index.indexer import Indexer
from tools.index.languages import LANGUAGE_NAMES, common_languages, text_language
from tools.index.snippets import find_snippets, snippets_from_start
from tools.index.store import first_lines, load_text
from tools.index.term_index import TermIndex, folders_of
from tools.index.terms import STOP_WORDS, Stemmer, fold, words
from tools.paths import modified_iso
from tools.sqlite import is_damaged
from tools.vectors.fusion import KeywordEvidence, fuse, near

if TYPE_CHECKING:  # numpy and the vector index load only when embeddings are configured
    from tools.vectors.centre import FolderCentre
    from tools.vectors.store import VectorHit, VectorStore

NAME_WEIGHT = 8.0
SNIPPET_WINDOW = 32 * 1024  # bytes inflated first: the words are usually near the start
LANGUAGES_TTL = 60.0
MIN_ROOT = 5
MAX_WORDS = 16
RARE_SHARE = 0.2
"""A query word held by at most this share of the documents (or by `RARE_FEW`) is rare: a
keyword match on it is evidence, not chance."""
RARE_FEW = 3
PASSAGE_CHARS = 240
"""A meaning hit's snippet (its best passage) is cut to this many characters."""
TIE_LIMIT = 5_000
"""Paths sharing the first characters a name-ordered listing sorts here, at most."""
TYPO_POOL = 5_000
"""Index terms sharing a misspelt word's first two letters that are compared with it, most
frequent first."""
FORMS_POOL = 2_000
"""Words of the index beginning as a stem does that are checked for having that stem."""
_CYRILLIC = re.compile(r"[а-я]")
_GLOB = re.compile(r"[*?\[]")
_END_PUNCTUATION = "?!.,;:…»)\"'"
_DOCUMENT_TYPES = "txt md markdown csv tsv json html htm xml pdf docx doc log yaml yml ini rst"
_NAMED_FILE = re.compile(rf"^(.+)\.({_DOCUMENT_TYPES.replace(' ', '|')})$", re.IGNORECASE)
_MUST = tantivy.Occur.Must
_SHOULD = tantivy.Occur.Should
_MUST_NOT = tantivy.Occur.MustNot
Q = tantivy.Query


def name_order(path: str) -> tuple[str, str]:
    """How name-ordered results sort: folded, then as written."""
    return fold(path), path


def split_query(query: str) -> tuple[list[str], list[str]]:
    """Words and name globs of a query. A word written as a file name (`шарлотка.txt`) is its
    words plus a name filter (`*.txt`): the extension says what kind of file, not a word the
    text holds. Names of different types filter nothing (globs must all match). A question's
    own punctuation at a word's end ("гостиницу?") is no glob: a chat question would otherwise
    ask for files named like its last word, and find nothing."""
    plain: list[str] = []
    globs: list[str] = []
    types: set[str] = set()
    for written in query.split():
        token = written.rstrip(_END_PUNCTUATION)
        if not token:
            continue
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


@dataclass(frozen=True)
class Within:
    """A search's scope: its folders (what the index filters by) and the visible files they
    allow (what every path shown is checked against)."""

    folders: tuple[str, ...]
    allowed: frozenset[str]


_ScopedView = tuple[dict[str, tuple[int, int]], frozenset[str]]


@dataclass
class _Group:
    """One query word: its stem, the stems accepted for it in names (`terms`) and the words
    of the contents that have those stems (`forms`)."""

    word: str
    stem: str
    terms: list[str] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)
    prefix: bool = False

    def pattern(self) -> str:
        """The word's forms for finding it in a text. A snippet's word may go on past the
        pattern, so a form that begins with another one adds nothing (a Russian stem begins
        each of its words) and is left out."""
        forms = {self.word, self.stem, *self.terms, *self.forms}
        forms |= {f[:-1] for f in forms if len(f) > 4 and f.endswith("i")}
        shortest: list[str] = []
        for form in sorted(filter(None, forms), key=len):
            if not any(form.startswith(kept) for kept in shortest):
                shortest.append(form)
        return "|".join(re.escape(f) for f in sorted(shortest, key=len, reverse=True))


class _Queries:
    """Index queries of one search, each confined to its scope and globs (`only`)."""

    def __init__(self, terms: TermIndex) -> None:
        self.searcher = terms.searcher()
        self.schema = terms.schema
        self.only: list[tantivy.Query] = []
        self.left_out: tantivy.Query | None = None

    def word(self, group: _Group, *, prefix: bool = True) -> tantivy.Query:
        """Any accepted term of one word, in the name (weighted) or the contents (and words
        it begins, when the group says so and `prefix` allows)."""
        parts: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for term in group.terms:
            name = Q.term_query(self.schema, "name", term)
            parts.append((_SHOULD, Q.boost_query(name, NAME_WEIGHT)))
        parts += [(_SHOULD, Q.term_query(self.schema, "body", form)) for form in group.forms]
        if group.prefix and prefix:
            parts += self._prefix(group.stem)
        return Q.boolean_query(parts)

    def _prefix(self, stem: str) -> list[tuple[tantivy.Occur, tantivy.Query]]:
        pattern = re.escape(stem) + ".*"
        name = Q.regex_query(self.schema, "name", pattern)
        return [
            (_SHOULD, Q.boost_query(name, NAME_WEIGHT)),
            (_SHOULD, Q.regex_query(self.schema, "body", pattern)),
        ]

    def prefix(self, stem: str) -> tantivy.Query:
        return Q.boolean_query(self._prefix(stem))

    def confine(self, query: tantivy.Query | None) -> tantivy.Query:
        """`query` within the scope and globs (None: everything they let through)."""
        parts = [] if query is None else [(_MUST, query)]
        parts += [(_MUST, Q.const_score_query(q, 0.0)) for q in self.only]
        if self.left_out is not None:
            parts.append((_MUST_NOT, self.left_out))
        if not parts:
            return Q.all_query()
        if len(parts) == 1 and query is not None:
            return query
        return Q.boolean_query(parts)

    @property
    def confined(self) -> bool:
        """Whether the scope or globs let only some documents through."""
        return bool(self.only) or self.left_out is not None

    def has_prefix(self, prefix: str) -> bool:
        """Whether an allowed document has a word, or a name a stem, that `prefix` begins:
        outside a scope a look at the word lists, inside one a query."""
        if self.confined:
            return self.exists(self.prefix(prefix))
        return any(self.searcher.terms_with_prefix(f, prefix, limit=1) for f in ("name", "body"))

    def exists(self, query: tantivy.Query) -> bool:
        """Whether any allowed document matches (cheaper than counting them all)."""
        return bool(self.searcher.search(self.confine(query), 1, count=False).hits)

    def top(self, query: tantivy.Query, limit: int, *, count: bool = True) -> Any:
        return self.searcher.search(self.confine(query), limit, count=count)

    def in_name_order(self, limit: int) -> tuple[list[str], int]:
        """The first `limit` documents the scope and globs let through, by folded path, and
        how many they let through. The index orders by a key of each path's first characters;
        paths tied on it at the cut are all fetched and sorted here."""
        found = self._by_order(None, max(2 * limit, 20), count=True)
        hits: list[tuple[int, tantivy.DocAddress]] = [(int(k), a) for k, a in found.hits]
        if len(hits) > limit and hits[limit - 1][0] == hits[-1][0]:
            key = hits[limit - 1][0]
            tie = Q.range_query(self.schema, "order", tantivy.FieldType.Unsigned, key, key)
            more = self._by_order(tie, TIE_LIMIT, count=False)
            hits = [h for h in hits if h[0] < key] + [(key, a) for _, a in more.hits]
        paths = sorted((self.path(address) for _, address in hits), key=name_order)
        return paths[:limit], int(found.count or 0)

    def _by_order(self, query: tantivy.Query | None, limit: int, *, count: bool) -> Any:
        return self.searcher.search(
            self.confine(query),
            limit,
            count=count,
            order_by_field="order",
            order=tantivy.Order.Asc,
        )

    def path(self, address: tantivy.DocAddress) -> str:
        return str(self.searcher.doc(address)["path"][0])


@dataclass(frozen=True)
class NearFiles:
    """The meaning side's files for one query, best first, each one's size and mtime (for a
    file the keyword side did not find) and its best passage as a snippet."""

    hits: list[VectorHit]
    signatures: dict[str, tuple[int, int]]
    passages: dict[str, dict[str, Any]]


class Searcher:
    """Runs queries against the index (blocking; call from a worker thread)."""

    def __init__(
        self,
        indexer: Indexer,
        stemmer: Stemmer,
        vectors: VectorStore | None = None,
        centre: FolderCentre | None = None,
    ) -> None:
        self.indexer = indexer
        self.stemmer = stemmer
        self.vectors = vectors
        self.centre = centre
        self._languages: list[str] = []
        self._languages_at = -LANGUAGES_TTL
        self._names = FoldedNames({})
        self._scoped: tuple[object, Within, _ScopedView] | None = None

    def _names_for(self, visible: dict[str, tuple[int, int]]) -> FoldedNames:
        """Folded names of the visible files, rebuilt only when the folder changed."""
        names = self._names
        if names.source is not visible:
            names = self._names = FoldedNames(visible)
        return names

    def search(self, query: str, limit: int, *, within: Within | None = None) -> dict[str, Any]:
        """The best `limit` documents for `query`; with `within`, among its files only."""
        return self.search_words(query, limit, within=within)[0]

    def search_words(
        self, query: str, limit: int, *, within: Within | None = None, weigh: bool = False
    ) -> tuple[dict[str, Any], KeywordEvidence]:
        """`search`, and with `weigh` what the fusion needs to know of how well it matched."""
        plain, globs = split_query(query)
        meaningful = ([w for w in plain if w not in STOP_WORDS] or plain)[:MAX_WORDS]
        if not globs and not meaningful:
            raise ToolError("the query has no words to search for", "Use a few keywords.")
        evidence = KeywordEvidence(query_language=text_language(query)) if weigh else None
        try:
            with self._index() as (conn, queries):
                return self._run(
                    conn, queries, meaningful, globs, limit=limit, within=within, weigh=evidence
                )
        except (sqlite3.Error, ValueError) as exc:  # ValueError: Tantivy's errors
            if isinstance(exc, sqlite3.Error) and is_damaged(exc):
                self.indexer.mark_broken()
            return self._run(None, None, meaningful, globs, limit=limit, within=within)

    @contextlib.contextmanager
    def _index(self) -> Iterator[tuple[sqlite3.Connection | None, _Queries | None]]:
        """A reader connection and the terms' searcher (both None before the first build
        wrote anything)."""
        try:
            terms = self.indexer.readers.terms()
        except FileNotFoundError:
            yield None, None
            return
        with self.indexer.readers.connection() as conn:
            yield conn, _Queries(terms)

    def _run(
        self,
        conn: sqlite3.Connection | None,
        queries: _Queries | None,
        plain: list[str],
        globs: list[str],
        *,
        limit: int,
        within: Within | None,
        weigh: KeywordEvidence | None = None,
    ) -> tuple[dict[str, Any], KeywordEvidence]:
        state = self.indexer.state
        current = state.visible
        visible = self._within(queries, within, current)
        groups = [self._group(queries, w) for w in dict.fromkeys(plain)]
        ranked: list[str] = []
        total = 0
        every: set[str] = set()
        warming = not state.ready or queries is None
        if queries is not None and (groups or not warming):
            if globs:
                queries.only.append(self._glob_query(queries.schema, globs))
            ranked, total, every = self._ranked(queries, groups, limit)
        elif globs and not groups:
            names = self._names_for(current).matching(globs)
            ranked = sorted((p for p in names if p in visible), key=name_order)
            total = len(ranked)
        if warming and groups:
            seen = set(ranked)
            wanted = [{*g.terms, g.stem} for g in groups]
            # Names are matched for the files the index does not hold yet (every file, when
            # there is no index): a restart's walk of a large folder leaves few or none.
            unindexed = visible.keys() if queries is None else visible.keys() - state.known.keys()
            for path in sorted(unindexed):
                if path in seen:
                    continue
                stems = set(self.stemmer.name_terms(path))
                if any(w & stems for w in wanted) and glob_match(path, globs):
                    ranked.append(path)
                    total += 1
        pattern = snippet_pattern(groups) if groups else None
        shown = [path for path in ranked if path in visible]
        total -= len(ranked) - len(shown)  # gone from the folder, not yet from the index
        first = shown[:limit]
        shown = self.indexer.present(first)
        total -= len(first) - len(shown)  # deleted while the bot was down (a restart's walk runs)
        results = [
            self._describe(conn, path, groups=groups, visible=visible, pattern=pattern)
            for path in shown
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
            # The languages are the whole index's: within a scope they would speak of
            # documents outside it, so a scoped search leaves them out.
            languages = self._languages_in(conn) if conn and within is None else []
            if languages:
                out["document_languages"] = languages
                out["hint"] += (
                    " The documents are written in "
                    + " and ".join(LANGUAGE_NAMES[code] for code in languages)
                    + ": search in that language too (translate the words)."
                )
        evidence = KeywordEvidence()
        if weigh is not None and conn is not None and queries is not None and groups:
            evidence = KeywordEvidence(
                every=frozenset(every),
                rare=self._rare(queries, groups),
                query_language=weigh.query_language,
                languages=self._languages_of(conn, shown),
            )
        return out, evidence

    @staticmethod
    def _rare(queries: _Queries, groups: list[_Group]) -> bool:
        """Whether every query word is held by few of the documents (see `RARE_SHARE`)."""
        documents = queries.searcher.num_docs
        most = max(RARE_FEW, RARE_SHARE * documents)
        return all(int(queries.top(queries.word(g), 1).count or 0) <= most for g in groups)

    @staticmethod
    def _languages_of(conn: sqlite3.Connection, paths: list[str]) -> dict[str, str | None]:
        if not paths:
            return {}
        marks = ",".join("?" * len(paths))
        rows = conn.execute(f"SELECT path, language FROM files WHERE path IN ({marks})", paths)
        return dict(rows.fetchall())

    def _within(
        self,
        queries: _Queries | None,
        within: Within | None,
        current: dict[str, tuple[int, int]],
    ) -> dict[str, tuple[int, int]]:
        """The visible files a search may see; the index queries confined to them."""
        if within is None:
            return current
        visible, denied = self._scoped_view(within, current)
        if queries is not None:
            queries.only.append(Q.term_set_query(queries.schema, "folder", list(within.folders)))
            if denied:
                queries.left_out = Q.term_set_query(queries.schema, "path", sorted(denied))
        return visible

    def _scoped_view(self, within: Within, visible: dict[str, tuple[int, int]]) -> _ScopedView:
        """The visible files the scope allows, and the files inside its folders that it still
        does not allow (a link leading out of it, say), which the index query leaves out by
        name. Kept until the folder or the scope changes."""
        cached = self._scoped
        if (
            cached is not None
            and cached[0] is visible
            and cached[1].allowed is within.allowed
            and cached[1].folders == within.folders
        ):
            return cached[2]
        folders = set(within.folders)
        denied = frozenset(
            p for p in visible if p not in within.allowed and not folders.isdisjoint(folders_of(p))
        )
        view = ({p: visible[p] for p in within.allowed if p in visible}, denied)
        self._scoped = (visible, within, view)
        return view

    @staticmethod
    def _glob_query(schema: tantivy.Schema, globs: list[str]) -> tantivy.Query:
        """Every glob matches: one with `/` the whole folded path, one without the file's name
        or one of its folders' (`tools.index.globs`). A name glob with `*` only around a text
        (`*invoice*`) is looked up among the names' endings, and one that only opens with `*`
        (`*.pdf`) from the end of the names: either walks only the names that can match."""
        parts = []
        for glob in globs:
            if "/" in glob:
                whole = Q.regex_query(schema, "fpath", glob_regex(glob, within_name=False))
                parts.append((_MUST, whole))
                continue
            pattern = glob_regex(glob, within_name=True)
            tail, inner = glob[1:], glob[1:-1]
            if glob.startswith("*") and glob.endswith("*") and inner and not _GLOB.search(inner):
                name = Q.regex_query(schema, "sname", re.escape(inner) + ".*")
            elif glob.startswith("*") and tail and not _GLOB.search(tail):
                name = Q.regex_query(schema, "rname", re.escape(tail[::-1]) + ".*")
            else:
                name = Q.regex_query(schema, "fname", pattern)
            folder = Q.regex_query(schema, "dname", pattern)
            parts.append((_MUST, Q.boolean_query([(_SHOULD, name), (_SHOULD, folder)])))
        return Q.boolean_query(parts)

    def _group(self, queries: _Queries | None, word: str) -> _Group:
        """The index terms accepted for one query word.

        A word the index lacks is widened step by step: close spellings (a typo), words it
        begins (a cut-off word), then words sharing a shorter root, which links derived
        forms such as "командировочные" and "командировка".
        """
        stem = self.stemmer.stem(word)
        group = _Group(word, stem, [stem])
        if queries is None:
            return group
        group.forms = self._forms(queries.searcher, stem)
        # Words of the index with its stem: some document has the word, unless the search is
        # confined to a scope, where one of them must be in it.
        if (group.forms and not queries.confined) or queries.exists(queries.word(group)):
            return group
        if len(word) >= 5:
            for close in self._close_terms(queries.searcher, stem):
                group.terms.append(close)
                group.forms += self._forms(queries.searcher, close)
        group.prefix = len(stem) >= 3
        if group.forms and not queries.confined:
            return group
        if group.prefix and queries.has_prefix(stem):
            return group
        if queries.exists(queries.word(group, prefix=False)):
            return group
        shortest = max(MIN_ROOT, math.ceil(len(word) * 0.6))
        for end in range(len(stem) - 1, shortest - 1, -1):
            if queries.has_prefix(stem[:end]):
                group.stem = stem[:end]
                break
        return group

    def _forms(self, searcher: tantivy.Searcher, stem: str) -> list[str]:
        """The words of the contents whose stem is `stem` ("отчет": отчет, отчета, отчеты...).

        A Russian stem begins each of its words; an English one may end differently
        ("happi" for "happy"), so its words are looked for by its first letters.
        """
        start = stem if _CYRILLIC.search(stem) else stem[: max(3, len(stem) - 2)]
        found = searcher.terms_with_prefix("body", start, limit=FORMS_POOL)
        return [form for form, _ in found if form == stem or self.stemmer.stem(form) == stem]

    def _close_terms(self, searcher: tantivy.Searcher, stem: str) -> list[str]:
        """Stems of the index one edit away (two for long words): the typo the user likely
        made.

        Swapped neighbours count as one edit ("отупск" for "отпуск"). The words compared are
        those sharing the word's first two letters, the most frequent first.
        """
        from rapidfuzz import process  # noqa: PLC0415 - loaded at the first typo, not at start
        from rapidfuzz.distance import OSA  # noqa: PLC0415

        names = searcher.terms_with_prefix("name", stem[:2], limit=TYPO_POOL)
        forms = searcher.terms_with_prefix("body", stem[:2], limit=TYPO_POOL)
        pool = {term for term, _ in names} | {self.stemmer.stem(form) for form, _ in forms}
        max_edits = 1 if len(stem) < 8 else 2
        close = process.extract(
            stem, list(pool), scorer=OSA.distance, score_cutoff=max_edits, limit=3
        )
        return [term for term, _, _ in close if term != stem and not term.isdigit()]

    def _languages_in(self, conn: sqlite3.Connection) -> list[str]:
        """The languages of the documents, each counted in the one most of it is written in;
        re-read at most every `LANGUAGES_TTL` seconds."""
        now = time.monotonic()
        if now - self._languages_at > LANGUAGES_TTL:
            rows = conn.execute(
                "SELECT language, count(*) FROM files WHERE language IS NOT NULL GROUP BY 1"
            )
            self._languages = common_languages(dict(rows.fetchall()))
            self._languages_at = now
        return self._languages

    @staticmethod
    def _ranked(
        queries: _Queries, groups: list[_Group], limit: int
    ) -> tuple[list[str], int, set[str]]:
        """The best `limit` paths, how many documents match some word (with no words: the
        first files the globs match by name, and how many they match), and the paths among
        them that hold every word."""
        if not groups:
            return (*queries.in_name_order(limit), set())
        built = [queries.word(g) for g in groups]
        every = Q.boolean_query([(_MUST, q) for q in built])
        some = Q.boolean_query([(_SHOULD, q) for q in built])
        ranked: list[str] = []
        total = 0
        tiers = [every, some] if len(built) > 1 else [every]
        for query in tiers:
            counted = query is tiers[-1]  # the total is of the documents with some word
            found = queries.top(query, limit, count=counted)
            total = int(found.count or 0) if counted else total
            for _, address in found.hits:
                path = queries.path(address)
                if path not in ranked:
                    ranked.append(path)
            if query is every:
                holding_every = set(ranked)
            if len(ranked) >= limit:
                break
        if len(built) > 1 and query is every:
            total = int(queries.top(some, 1).count or 0)
        return ranked, total, holding_every

    def near_files(
        self, vector: Any, query: str, limit: int, *, within: Within | None = None
    ) -> NearFiles:
        """The files nearest to the query's `vector` within the scope (filtered inside the
        vector query, then by the query's globs and by `near`), best first. Needs no keyword
        result, so it runs beside `search_words` as soon as the vector is in."""
        if self.vectors is None:
            return NearFiles([], {}, {})
        globs = split_query(query)[1]
        visible = self.indexer.state.visible
        if within is not None:
            visible = self._scoped_view(within, visible)[0]
        allowed = None if within is None else within.allowed
        found_near, centred = self.nearest(vector, limit, allowed=allowed)
        hits = [hit for hit in found_near if hit.path in visible and glob_match(hit.path, globs)]
        there = set(self.indexer.present(hit.path for hit in hits))
        hits = [hit for hit in hits if hit.path in there]
        hits = hits[: near([hit.similarity for hit in hits], centred=centred)]
        lines: dict[str, list[str]] = {}
        if hits:
            with self.indexer.readers.connection() as conn:
                lines = first_lines(conn, {hit.path: hit.last for hit in hits})
        passages = {hit.path: self._passage(hit, lines.get(hit.path, [])) for hit in hits}
        return NearFiles(hits, {hit.path: visible[hit.path] for hit in hits}, passages)

    @staticmethod
    def fused(
        found: dict[str, Any], evidence: KeywordEvidence, meaning: NearFiles, limit: int
    ) -> dict[str, Any]:
        """The keyword results `found` fused with the `meaning` side's files; each result says
        which sides found it, and one the keyword side gave no snippet shows its passage."""
        described = {item["path"]: item for item in found["results"]}
        fused = fuse(list(described), [hit.path for hit in meaning.hits], evidence, limit)
        results = []
        for one in fused:
            item = described.get(one.path)
            if item is None:
                size, mtime_ns = meaning.signatures[one.path]
                item = {"path": one.path, "size": size, "modified": modified_iso(mtime_ns)}
            passage = meaning.passages.get(one.path)
            if passage is not None and not item.get("snippets"):
                item["snippets"] = [passage]
            item["found_by"] = list(one.found_by)
            results.append(item)
        only_meaning = sum(1 for one in fused if one.found_by == ("meaning",))
        out = {k: v for k, v in found.items() if k not in ("hint", "document_languages")}
        out["results"] = results
        out["total"] = max(int(found["total"]) + only_meaning, len(results))
        out["truncated"] = out["total"] > len(results)
        return out if results else found

    def nearest(
        self, vector: Any, limit: int, *, allowed: frozenset[str] | None = None
    ) -> tuple[list[VectorHit], bool]:
        """The `limit` files nearest to the query's `vector`, centred on the folder first
        (`tools.vectors.centre`), and whether it was."""
        if self.vectors is None:
            return [], False
        centred = False
        if self.centre is not None:
            vector, centred = self.centre.centred(vector)
        return self.vectors.search(vector, limit, allowed=allowed), centred

    @staticmethod
    def _passage(hit: VectorHit, lines: list[str]) -> dict[str, Any]:
        """A meaning hit's snippet: the start of its best passage (of its file's first
        `lines`), where it lies."""
        shown = lines[hit.first - 1 :]
        passage = " ".join(line.strip() for line in shown if line.strip())
        if len(passage) > PASSAGE_CHARS:
            passage = passage[: PASSAGE_CHARS - 1] + "…"
        snippet: dict[str, Any] = {"line": hit.first, "text": passage}
        if hit.place is not None:
            snippet["place"] = hit.place.text
        return snippet

    def _describe(
        self,
        conn: sqlite3.Connection | None,
        path: str,
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
        row = None
        if conn is not None and pattern is not None:
            row = conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
        if row is not None and conn is not None and pattern is not None:
            rowid = int(row[0])
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

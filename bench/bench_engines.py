"""engines: SQLite FTS5 (contentless, bundled SQLite) beside Tantivy, fed the same terms.

Which engine should hold the index at 100,000 documents? Both get exactly what our indexer
produces for each file of the corpus (stemmed name and body terms, extracted by our extractor in
two processes), and answer the same stemmed queries: top 10 by BM25 with names weighted above
contents, documents holding every word first, with the total count, as `search_files` asks.
Only the engines' own work is timed: inserting, committing, querying.
"""

from __future__ import annotations

import heapq
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tantivy

if TYPE_CHECKING:
    import sqlite3 as sqlite
else:  # a current SQLite: FTS5 that deletes from a contentless table
    import sqlean as sqlite

from bench import corpus
from bench.context import Context
from bench.queries import query_mix
from bench.results import BenchResult, Metric
from bench.stats import median, p95
from bench.toolbox import folder_mb
from tools.extract.extractor import Extractor, Limits
from tools.index.terms import STOP_WORDS, Stemmer
from tools.search import NAME_WEIGHT, split_query

TOP_MARK = "_"
"""Marks a document's top terms in the FTS5 table (no word holds it), as the index did there."""
RANK_ALL = 8_000
TITLE = "engines: SQLite FTS5 (contentless) vs Tantivy on the same terms and queries"
LIMIT = 10
COMMIT_DOCS = 5_000
Doc = tuple[str, str, str, str]  # path, name terms, body terms, top terms
Timings = dict[str, list[float]]


def variants(quick: bool) -> list[str]:
    """One corpus size: 1,000 documents in quick mode, 10,000 in a full run."""
    return ["1000"] if quick else ["10000"]


_EXTRACTOR: Extractor | None = None
_STEMMER = Stemmer()
_STOP_STEMS = frozenset(_STEMMER.stem(w) for w in STOP_WORDS)
TOP_TERMS = 16


def _prepare(root: Path, rels: list[str]) -> list[Doc]:
    """Extract and stem a batch of files the way the indexer does (in a pool process)."""
    global _EXTRACTOR  # noqa: PLW0603 - one extractor per pool process, made on first use
    if _EXTRACTOR is None:
        _EXTRACTOR = Extractor(Limits(max_file_bytes=50 * 1024 * 1024), root=root)
    out = []
    for rel in rels:
        try:
            text = _EXTRACTOR.extract(root / rel, background=True)
        except Exception:  # an unreadable file is indexed by name only
            text = ""
        names = " ".join(_STEMMER.name_terms(rel))
        body = _STEMMER.bag(text) if text else ""
        top = _top_terms(body)
        marked = " ".join(TOP_MARK + t for t in f"{names} {top}".split())
        out.append((rel, names, body, marked))
    return out


def _top_terms(body: str) -> str:
    """A document's `TOP_TERMS` most frequent content stems (stop words and numbers left
    out): what the FTS5 index's bounded ranking looked among."""
    counts = Counter(body.split())
    content = [t for t in counts if t not in _STOP_STEMS and not t.isdigit()]
    return " ".join(heapq.nlargest(TOP_TERMS, content, key=counts.__getitem__))


def _documents(root: Path) -> Iterator[Doc]:
    rels = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    batches = [rels[i : i + 200] for i in range(0, len(rels), 200)]
    with ProcessPoolExecutor(max_workers=2) as pool:
        for batch in pool.map(_prepare, [root] * len(batches), batches):
            yield from batch


class Fts5:
    """The index as tools/index/store.py lays it out, terms only. Searched two ways: `bounded`
    ranks as search_files does (common words: the documents about them), else every match is
    scored, as the index did before."""

    label = "SQLite FTS5"

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True)
        self.conn = sqlite.connect(str(folder / "fts.sqlite3"), isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute("CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT UNIQUE)")
        self.conn.execute(
            "CREATE VIRTUAL TABLE terms USING fts5(name, body, top, content='', "
            "contentless_delete=1, tokenize=\"unicode61 remove_diacritics 0 tokenchars '_'\")"
        )
        self.conn.execute("BEGIN")

    def add(self, doc: Doc) -> None:
        rowid = self.conn.execute("INSERT INTO files(path) VALUES (?)", (doc[0],)).lastrowid
        self.conn.execute(
            "INSERT INTO terms(rowid, name, body, top) VALUES (?, ?, ?, ?)",
            (rowid, doc[1], doc[2], doc[3]),
        )

    def commit(self, *, final: bool) -> None:
        self.conn.execute("COMMIT")
        if not final:
            self.conn.execute("BEGIN")
        else:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def search(self, groups: list[list[str]], *, bounded: bool) -> tuple[list[str], int]:
        query = IndexQuery(self.conn)
        fts = ["(" + " OR ".join(f'"{t}"' for t in g) + ")" for g in groups]
        top = ["(" + " OR ".join(f'"{TOP_MARK}{t}"' for t in g) + ")" for g in groups]
        tiers = [" AND ", " OR "][: 1 + (len(fts) > 1)]
        found: list[str] = []
        for joiner in tiers:
            match = joiner.join(fts)
            floor = query.floor(match) if bounded else None
            if floor is None:
                found += [p for p, _ in query.ranked(match, LIMIT)]
            else:
                about = joiner.join(f"({f} AND {t})" for f, t in zip(fts, top, strict=True))
                found += [p for p, _ in query.ranked(about, LIMIT, floor=query.floor(about))]
                found += [p for p, _ in query.ranked(match, LIMIT, floor=floor)]
            if len(found) >= LIMIT:
                break
        return found[:LIMIT], query.count(" OR ".join(fts))


class IndexQuery:
    """FTS5's bounded ranking, as the index ranked before it moved to Tantivy: a query with
    more than `RANK_ALL` matches is scored over the newest documents that have its words in
    their name or top terms, then over the newest matches."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def floor(self, match: str) -> int | None:
        row = self.conn.execute(
            "SELECT rowid FROM terms WHERE terms MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
            (match, RANK_ALL),
        ).fetchone()
        return None if row is None else int(row[0]) + 1

    def ranked(self, match: str, fetch: int, *, floor: int | None = None) -> list[tuple[str, int]]:
        scored = (
            f"SELECT terms.rowid AS id, bm25(terms, {NAME_WEIGHT}, 1.0, 0.0) AS score "
            "FROM terms WHERE terms MATCH ? AND terms.rowid >= ? ORDER BY score LIMIT ?"
        )
        sql = f"SELECT f.path, f.id FROM ({scored}) s JOIN files f ON f.id = s.id ORDER BY s.score"
        rows = self.conn.execute(sql, (match, floor or 0, fetch))
        return [(str(path), int(rowid)) for path, rowid in rows]

    def count(self, match: str) -> int:
        sql = "SELECT count(*) FROM terms WHERE terms MATCH ?"
        return int(self.conn.execute(sql, (match,)).fetchone()[0])


class Tantivy:
    """The same fields in Tantivy: whitespace-split terms, names boosted in the query."""

    label = "Tantivy 0.27 (BM25, block-max WAND)"

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True)
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("path", stored=True, tokenizer_name="raw")
        builder.add_text_field("name", tokenizer_name="terms", index_option="freq")
        builder.add_text_field("body", tokenizer_name="terms", index_option="freq")
        self.schema = builder.build()
        self.index = tantivy.Index(self.schema, path=str(folder))
        analyzer = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
        self.index.register_tokenizer("terms", analyzer)
        self.writer = self.index.writer(heap_size=64_000_000, num_threads=1)

    def add(self, doc: Doc) -> None:
        self.writer.add_document(tantivy.Document(path=doc[0], name=doc[1], body=doc[2]))

    def commit(self, *, final: bool) -> None:
        self.writer.commit()
        if final:
            self.writer.wait_merging_threads()
            self.index.reload()

    def _group(self, terms: list[str]) -> Any:
        should = tantivy.Occur.Should
        parts = []
        for term in terms:
            name = tantivy.Query.term_query(self.schema, "name", term)
            parts.append((should, tantivy.Query.boost_query(name, NAME_WEIGHT)))
            parts.append((should, tantivy.Query.term_query(self.schema, "body", term)))
        return tantivy.Query.boolean_query(parts)

    def search(self, groups: list[list[str]], *, bounded: bool) -> tuple[list[str], int]:
        del bounded  # Tantivy bounds its work itself (block-max WAND)
        searcher = self.index.searcher()
        built = [self._group(g) for g in groups]
        every = tantivy.Query.boolean_query([(tantivy.Occur.Must, q) for q in built])
        some = tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in built])
        found: list[str] = []
        for query in [every, some][: 1 + (len(built) > 1)]:
            hits = searcher.search(query, LIMIT, count=False).hits
            found += [searcher.doc(address)["path"][0] for _, address in hits]
            if len(found) >= LIMIT:
                break
        total = getattr(searcher.search(some, 1, count=True), "count", 0) or 0
        return found[:LIMIT], total


def _stemmed_groups(stemmer: Stemmer, text: str) -> list[list[str]]:
    plain, _ = split_query(text)
    meaningful = [w for w in plain if w not in STOP_WORDS] or plain
    return [[stemmer.stem(w)] for w in dict.fromkeys(meaningful)]


def run(ctx: Context, variant: str) -> BenchResult:
    """Build both engines from one pass over the corpus, then time the same queries."""
    docs = int(variant)
    result = BenchResult("engines", TITLE)
    root = corpus.ensure(ctx.workdir, docs, ctx.python, ctx.child_env())
    text_mb = folder_mb(root)
    base = ctx.scratch(f"engines-{docs}")
    engines: list[Fts5 | Tantivy] = [Fts5(base / "fts5"), Tantivy(base / "tantivy")]
    spent = {e.label: 0.0 for e in engines}
    count = 0
    for doc in _documents(root):
        count += 1
        for engine in engines:
            started = time.perf_counter()
            engine.add(doc)
            if count % COMMIT_DOCS == 0:
                engine.commit(final=False)
            spent[engine.label] += time.perf_counter() - started
    for engine in engines:
        started = time.perf_counter()
        engine.commit(final=True)
        spent[engine.label] += time.perf_counter() - started
    for engine, folder in zip(engines, ["fts5", "tantivy"], strict=True):
        size = folder_mb(base / folder)
        result.metrics.append(
            Metric(f"{engine.label}: insert + commit, {count:,} docs", "s", [spent[engine.label]])
        )
        result.metrics.append(
            Metric(
                f"{engine.label}: index size (terms only)",
                "MB",
                [size],
                note=f"{size / text_mb:.2f}× the {text_mb:.0f} MB corpus on disk",
            )
        )
    stemmer = Stemmer()
    mix = [q for q in query_mix() if q.glob is None]
    passes = 2 if ctx.quick else 5
    ways = [
        (engines[0], False, "SQLite FTS5, every match scored (as before)"),
        (engines[0], True, "SQLite FTS5, bounded ranking (as now)"),
        (engines[1], False, engines[1].label),
    ]
    for engine, bounded, label in ways:
        times: Timings = {q.text: [] for q in mix}
        totals = {}
        for query in mix:
            groups = _stemmed_groups(stemmer, query.text)
            totals[query.text] = engine.search(groups, bounded=bounded)[1]
        for _ in range(passes):
            for query in mix:
                groups = _stemmed_groups(stemmer, query.text)
                started = time.perf_counter()
                engine.search(groups, bounded=bounded)
                times[query.text].append((time.perf_counter() - started) * 1000.0)
        for kind in ["all", *dict.fromkeys(q.kind for q in mix)]:
            chosen = [t for q in mix if kind in {"all", q.kind} for t in times[q.text]]
            result.metrics.append(Metric(f"{label}: query, {kind}", "ms", chosen))
        slowest = sorted(times, key=lambda q: median(times[q]), reverse=True)[:3]
        result.notes.append(
            f"{label}: slowest (median/p95): "
            + ", ".join(f"`{q}` {median(times[q]):.1f}/{p95(times[q]):.1f} ms" for q in slowest)
            + f"; `годовой отчет` matches {totals.get('годовой отчет')} documents"
        )
    result.notes.append(
        "Both engines get the same stemmed terms (terms in bag order: no positions are used); "
        "FTS5 keeps positions as it always does, Tantivy frequencies only. Query times are the "
        "engine call alone: top 10 of the every-word query (then the any-word one), plus the "
        "total of the any-word query, as search_files needs."
    )
    shutil.rmtree(base, ignore_errors=True)
    return result

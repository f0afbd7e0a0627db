"""The inverted index of the search: Tantivy over the stemmed terms of names and contents.

Tantivy ranks by BM25 with block-max WAND: it skips the blocks of a long posting list that
cannot reach the top, so a word found in most of 100,000 documents still answers in
milliseconds, and counting every match stays cheap.

Contents arrive as folded text (lower case, ё as е, composed) and Tantivy cuts them into words
in its own threads, so a build spends no interpreter time on words; they are kept as written,
not stemmed, and a search asks for every word of the index that has its word's stem
(`tools.search`), which costs a lookup in the word list instead of stemming every word of every
document. Names arrive as their stems (`Stemmer.name_terms`, which also splits camelCase).
Positions are not kept (queries match words, not phrases).

Besides the terms each document carries its path several ways: as stored (`path`, the key a
change replaces or deletes by); folded for name globs (`fpath` whole, `fname` the file's name,
`rname` that name reversed, so `*.pdf` walks only the names ending so, `sname` every ending of
that name, so `*invoice*` walks only the endings that begin so, `dname` its folders' names);
and as its folders (`folder`), so a search within a scope filters inside the query itself and
ranking, limits and totals count allowed documents only.
"""

from __future__ import annotations

import bisect
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tantivy

from tools.index.terms import fold

WRITER_HEAP = 32_000_000
"""Bytes the writer buffers before it writes a segment (Tantivy's floor is 15 MB)."""
_ORDERED = sorted(
    map(ord, " !#$%&'()+,-./0123456789_abcdefghijklmnopqrstuvwxyzабвгдежзийклмнопрстуфхцчшщъыьэюя")
)
_KEY_CHARS = 9  # 7 bits each: 63 bits
WORDS = "words"
LONGEST_WORD = 160
"""Bytes: a longer "word" (an encoded blob, say) is left out of the index."""


def words_analyzer() -> tantivy.TextAnalyzer:
    """Words (runs of letters and digits) of folded text, as they are written."""
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(LONGEST_WORD))
        .filter(tantivy.Filter.lowercase())
        .build()
    )


def build_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("path", stored=True, tokenizer_name="raw")
    builder.add_text_field("folder", tokenizer_name="raw")
    builder.add_text_field("fname", tokenizer_name="raw")
    builder.add_text_field("rname", tokenizer_name="raw")
    builder.add_text_field("sname", tokenizer_name="raw")
    builder.add_text_field("dname", tokenizer_name="raw")
    builder.add_text_field("fpath", tokenizer_name="raw")
    builder.add_text_field("name", tokenizer_name="whitespace", index_option="freq")
    builder.add_text_field("body", tokenizer_name=WORDS, index_option="freq")
    builder.add_unsigned_field("mtime", fast=True)
    builder.add_unsigned_field("order", fast=True, indexed=True)
    return builder.build()


def order_key(folded: str) -> int:
    """A number that sorts as the folded path does, told by its first nine characters (paths
    that share them tie): name-ordered listings come straight from the index."""
    key = 0
    for i in range(_KEY_CHARS):
        rank = bisect.bisect_right(_ORDERED, ord(folded[i])) + 1 if i < len(folded) else 0
        key = (key << 7) | rank
    return key


def folders_of(rel: str) -> list[str]:
    """`a/b/c.txt` -> `a`, `a/b` (composed form, as scopes name them)."""
    rel = unicodedata.normalize("NFC", rel)
    parts = rel.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


@dataclass(frozen=True)
class TermDoc:
    """What the inverted index holds of one file."""

    path: str
    mtime_ns: int
    name_terms: str
    body_text: str


class TermIndex:
    """One opened index folder: searchers for any thread, and the writer for one."""

    def __init__(self, folder: Path, *, create: bool) -> None:
        self.folder = folder
        self.schema = build_schema()
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        elif not tantivy.Index.exists(str(folder)):
            msg = f"no search index in {folder}"
            raise FileNotFoundError(msg)
        self.index = tantivy.Index(self.schema, path=str(folder), reuse=True)
        self.index.register_tokenizer(WORDS, words_analyzer())

    def searcher(self) -> tantivy.Searcher:
        return self.index.searcher()

    def reload(self) -> None:
        """See the last commit now (otherwise readers see it within about a second)."""
        self.index.reload()

    def writer(self) -> TermWriter:
        return TermWriter(self)


class TermWriter:
    """Adds, replaces and deletes documents; a change is seen once committed."""

    def __init__(self, terms: TermIndex) -> None:
        self.terms = terms
        self._writer: Any = terms.index.writer(heap_size=WRITER_HEAP, num_threads=1)
        self.dirty = False

    def add(self, doc: TermDoc) -> None:
        """Index one file (after `delete` of its path when it was indexed before)."""
        *folders, base = fold(doc.path).split("/")
        entry = tantivy.Document(
            path=doc.path,
            folder=folders_of(doc.path),
            fname=base,
            rname=base[::-1],
            sname=[base[i:] for i in range(len(base))],
            dname=sorted(set(folders)),
            fpath=fold(doc.path),
            name=doc.name_terms,
            body=doc.body_text,
        )
        entry.add_unsigned("mtime", max(0, doc.mtime_ns))
        entry.add_unsigned("order", order_key(fold(doc.path)))
        self._writer.add_document(entry)
        self.dirty = True

    def delete(self, path: str) -> None:
        self._writer.delete_documents_by_term("path", path)
        self.dirty = True

    def commit(self) -> None:
        if self.dirty:
            self._writer.commit()
            self.dirty = False

    def close(self) -> None:
        """Commit, let running merges finish, and give up the folder's write lock."""
        writer, self._writer = self._writer, None
        if writer is not None:
            if self.dirty:
                writer.commit()
            writer.wait_merging_threads()

"""The two query sets of the meaning benchmark, and what a query shares with its documents.

`paraphrase.json` asks the way people ask (synonyms and slang, English over Russian, whole
chat questions, situations instead of terms); `keyword.json` asks in the documents' own words
(terms, word forms, typos, file-name words), the kind keyword search is good at. Each query
names the files that answer it, as paths in the benchmark's folder: the shipped samples
(`sandbox/`) and the generated corpus (`corpus.documents`).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from bench.meaning import corpus
from tools.index.terms import STOP_WORDS, Stemmer, words

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent / "sandbox"
PARAPHRASE = HERE / "paraphrase.json"
KEYWORD = HERE / "keyword.json"
KINDS = ("synonym", "cross-lingual", "chat", "situation")


@dataclass(frozen=True)
class Query:
    """One question, its kind and the files any of which answers it."""

    text: str
    kind: str
    relevant: tuple[str, ...]


def load(path: Path) -> list[Query]:
    """The queries of one set file."""
    rows = json.loads(path.read_text(encoding="utf-8"))
    return [Query(r["query"], r["kind"], tuple(r["relevant"])) for r in rows]


def sample_files() -> dict[str, str]:
    """The shipped samples the bot sees (hidden files left out), by relative path."""
    return {
        str(p.relative_to(SAMPLES)): p.read_text(encoding="utf-8")
        for p in sorted(SAMPLES.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(SAMPLES).parts)
    }


def folder_files() -> dict[str, str]:
    """Every file of the benchmark's folder by relative path: the samples and the corpus."""
    return {**sample_files(), **corpus.documents()}


def build_folder(root: Path, *, samples_only: bool = False) -> int:
    """Write the benchmark's folder (or the samples alone) under `root`; how many files."""
    for path in sorted(SAMPLES.rglob("*")):
        rel = path.relative_to(SAMPLES)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, root / rel)
    written = len(sample_files())
    return written if samples_only else written + corpus.write(root)


def stems(stemmer: Stemmer, text: str) -> set[str]:
    """The stems search would match a text by, stop words left out as search leaves them."""
    return {stemmer.stem(w) for w in words(text) if w not in STOP_WORDS}


def shared_stems(stemmer: Stemmer, query: Query, files: dict[str, str]) -> dict[str, set[str]]:
    """For each relevant file, the stems the query shares with its path or its text."""
    asked = stems(stemmer, query.text)
    found: dict[str, set[str]] = {}
    for rel in query.relevant:
        document = stems(stemmer, files.get(rel, "")) | set(stemmer.name_terms(rel))
        if asked & document:
            found[rel] = asked & document
    return found

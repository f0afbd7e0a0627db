"""The vector store searched through its sign-bit codes, against its own exact scan.

The row counts that choose the path are set to nothing here, so every search goes through the
codes; a second store on the same folder with the shipped counts scans the few rows exactly
and is the reference. The vectors are clustered as a sentence encoder's are: files of one
topic near each other, a file's passages nearer still, all leaning one common way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tools.vectors.cache import quantise
from tools.vectors.passages import Passage
from tools.vectors.store import FileChange, VectorStore

DIMENSIONS = 256
FILES = 600
PASSAGES = 5
TOPICS = 40


def _unit(x: np.ndarray) -> np.ndarray:
    unit: np.ndarray = x / np.linalg.norm(x, axis=-1, keepdims=True)
    return unit


class Corpus:
    """Clustered unit vectors for `FILES` files, and queries near some of their passages."""

    def __init__(self, seed: int = 3) -> None:
        self.rng = np.random.default_rng(seed)
        self.common = _unit(self.rng.standard_normal(DIMENSIONS))
        self.topics = _unit(self.rng.standard_normal((TOPICS, DIMENSIONS)))
        self.vectors = {f"f{n}.txt": self.file_vectors() for n in range(FILES)}

    def file_vectors(self) -> np.ndarray:
        centre = self.topics[self.rng.integers(TOPICS)] + 0.8 * _unit(
            self.rng.standard_normal(DIMENSIONS)
        )
        noise = 0.9 * _unit(self.rng.standard_normal((PASSAGES, DIMENSIONS)))
        return _unit(_unit(_unit(centre) + noise) + 0.7 * self.common)

    def query_near(self, vector: np.ndarray) -> np.ndarray:
        return _unit(vector + 0.9 * _unit(self.rng.standard_normal(DIMENSIONS)))

    def queries(self, count: int) -> list[np.ndarray]:
        paths = sorted(self.vectors)
        chosen = self.rng.choice(len(paths), count, replace=False)
        return [self.query_near(self.vectors[paths[i]][i % PASSAGES]) for i in chosen]


def change(path: str, vectors: np.ndarray) -> FileChange:
    passages = [Passage(path, i + 1, i + 1, None, "") for i in range(len(vectors))]
    return FileChange(path, 1, 1, passages, quantise(vectors))


def through_codes(folder: Path, candidates: int = 300) -> VectorStore:
    """A store whose every search goes through the codes."""
    return VectorStore(folder, exact_rows=0, exact_scoped_rows=0, candidates=candidates)


@pytest.fixture
def corpus() -> Corpus:
    return Corpus()


@pytest.fixture
def folder(tmp_path: Path, corpus: Corpus) -> Path:
    store = VectorStore(tmp_path / "vectors")
    store.open_for("test", DIMENSIONS)
    store.apply([change(path, vectors) for path, vectors in corpus.vectors.items()])
    store.close()
    return tmp_path / "vectors"


def paths(
    store: VectorStore, query: np.ndarray, allowed: frozenset[str] | None = None
) -> list[str]:
    return [hit.path for hit in store.search(query, 10, allowed=allowed)]


def recall(found: list[list[str]], exact: list[list[str]]) -> float:
    return float(
        np.mean([len(set(f) & set(e)) / len(e) for f, e in zip(found, exact, strict=True)])
    )


class TestThroughCodes:
    def test_the_nearest_files_are_those_of_the_exact_scan(
        self, folder: Path, corpus: Corpus
    ) -> None:
        exact, fast = VectorStore(folder), through_codes(folder)
        queries = corpus.queries(40)
        reference = [paths(exact, q) for q in queries]
        assert recall([paths(fast, q) for q in queries], reference) >= 0.95
        assert all(len(found) == 10 for found in reference)

    def test_a_passage_outside_the_scope_never_takes_a_place(
        self, folder: Path, corpus: Corpus
    ) -> None:
        fast, exact = through_codes(folder), VectorStore(folder)
        scope = frozenset(f"f{n}.txt" for n in range(0, FILES, 10))
        outside = [corpus.vectors[f"f{n}.txt"][0] for n in range(1, FILES, 37)]
        for query in outside:
            found = paths(fast, query, scope)
            assert found
            assert set(found) <= scope
            assert found == paths(exact, query, scope)

    def test_a_scope_smaller_than_the_candidates_is_scored_whole(
        self, folder: Path, corpus: Corpus
    ) -> None:
        fast = through_codes(folder, candidates=1_000)
        scope = frozenset({"f5.txt", "f6.txt"})
        assert set(paths(fast, corpus.vectors["f9.txt"][0], scope)) == scope

    def test_appended_rows_get_codes(self, folder: Path, corpus: Corpus) -> None:
        fast = through_codes(folder, candidates=20)
        fresh = corpus.query_near(corpus.vectors["f7.txt"][1])
        assert "new.txt" not in paths(fast, fresh)
        fast.apply([change("new.txt", fresh[None])])
        assert paths(fast, fresh)[0] == "new.txt"

    def test_codes_follow_the_matrix_written_anew(self, folder: Path, corpus: Corpus) -> None:
        fast = through_codes(folder, candidates=20)
        kept = sorted(corpus.vectors)[-1]
        assert paths(fast, corpus.vectors[kept][2])[0] == kept
        removed = sorted(corpus.vectors)[: FILES - 10]
        fast.apply([FileChange(path) for path in removed])
        rows = (folder / "matrix.i8").stat().st_size // DIMENSIONS
        assert rows == 10 * PASSAGES
        for path in sorted(corpus.vectors)[FILES - 10 :]:
            assert paths(fast, corpus.vectors[path][2])[0] == path
        assert not set(paths(fast, corpus.vectors[removed[0]][0])) & set(removed)

    def test_a_restart_computes_the_codes_again(self, folder: Path, corpus: Corpus) -> None:
        fresh = corpus.query_near(corpus.vectors["f8.txt"][2])
        through_codes(folder).apply([change("late.txt", fresh[None])])
        assert paths(through_codes(folder, candidates=20), fresh)[0] == "late.txt"

    def test_each_scope_is_kept_to_even_when_one_is_asked_again(
        self, folder: Path, corpus: Corpus
    ) -> None:
        fast = through_codes(folder)
        query = corpus.vectors["f3.txt"][0]
        evens = frozenset(f"f{n}.txt" for n in range(0, FILES, 2))
        odds = frozenset(f"f{n}.txt" for n in range(1, FILES, 2))
        for scope in (evens, odds, evens, odds):
            found = paths(fast, query, scope)
            assert found
            assert set(found) <= scope
        assert paths(fast, query, odds)[0] == "f3.txt"

    def test_a_scope_asked_again_sees_the_rows_added_since(
        self, folder: Path, corpus: Corpus
    ) -> None:
        fast = through_codes(folder, candidates=20)
        fresh = corpus.query_near(corpus.vectors["f4.txt"][3])
        scope = frozenset({"f4.txt", "f5.txt", "later.txt"})
        assert "later.txt" not in paths(fast, fresh, scope)
        fast.apply([change("later.txt", fresh[None])])
        assert paths(fast, fresh, scope)[0] == "later.txt"

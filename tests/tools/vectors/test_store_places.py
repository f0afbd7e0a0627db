"""The vector index keeps each passage's place in its text form: a section's path reads back,
a place stored before sections had paths still reads, and an index cut the old way starts over
when the builder opens it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from tools.extract.places import Place
from tools.vectors.cache import quantise
from tools.vectors.passages import Passage
from tools.vectors.store import ROWS, FileChange, VectorStore

DIMENSIONS = 8


def _stored(folder: Path, place: Place | None) -> VectorStore:
    store = VectorStore(folder)
    store.open_for("test", DIMENSIONS)
    vector = np.eye(DIMENSIONS)[:1]
    passage = Passage("a.docx", 3, 4, place, "## 4.2 Ежегодный\nтекст")
    store.apply([FileChange("a.docx", 1, 1, [passage], quantise(vector))])
    return store


def _query() -> np.ndarray:
    query: np.ndarray = np.eye(DIMENSIONS)[0]
    return query


class TestPlaces:
    def test_a_section_path_reads_back_as_its_text_form(self, tmp_path: Path) -> None:
        place = Place("page", 12, section=("Правила", "Отпуск", "Ежегодный"))
        store = _stored(tmp_path / "vectors", place)
        [hit] = store.search(_query(), 5)
        assert hit.place == Place("page", 12, section=("Отпуск", "Ежегодный"))
        assert hit.place is not None and hit.place.text == place.text
        store.close()

    def test_a_place_stored_in_the_old_form_still_reads(self, tmp_path: Path) -> None:
        store = _stored(tmp_path / "vectors", None)
        store.close()
        with sqlite3.connect(tmp_path / "vectors" / ROWS) as conn:
            conn.execute("UPDATE passages SET place = 'heading: Отпуска'")
        reader = VectorStore(tmp_path / "vectors")
        [hit] = reader.search(_query(), 5)
        assert hit.place == Place("heading", section=("Отпуска",))
        assert str(hit.place) == "§ Отпуска"
        reader.close()

    def test_an_index_cut_the_old_way_starts_over(self, tmp_path: Path) -> None:
        store = _stored(tmp_path / "vectors", None)
        store.open_for("test", DIMENSIONS)
        assert store.known() == {"a.docx": (1, 1)}, "the same cut is kept"
        store.close()
        with sqlite3.connect(tmp_path / "vectors" / ROWS) as conn:
            conn.execute("DELETE FROM meta WHERE key = 'cut'")
        again = VectorStore(tmp_path / "vectors")
        again.open_for("test", DIMENSIONS)
        assert again.known() == {}
        assert again.passages() == 0
        again.close()

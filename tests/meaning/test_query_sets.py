"""The query sets of the meaning benchmark are what they claim to be.

A paraphrase that shares a word stem with a file that answers it would let keyword search
find it by that word, and the set would measure less than it says; so every one is checked
with the index's own stemmer, against the file's path and its text.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.meaning import corpus, sets
from tools.index.terms import Stemmer, words

PARAPHRASES = sets.load(sets.PARAPHRASE)
KEYWORDS = sets.load(sets.KEYWORD)


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return sets.folder_files()


class TestParaphraseSet:
    def test_has_enough_queries_of_each_of_the_four_kinds(self) -> None:
        kinds = Counter(q.kind for q in PARAPHRASES)
        assert len(PARAPHRASES) >= 48
        assert set(kinds) == set(sets.KINDS)
        assert all(count >= 10 for count in kinds.values()), kinds

    def test_no_query_shares_a_word_stem_with_a_file_that_answers_it(
        self, files: dict[str, str]
    ) -> None:
        stemmer = Stemmer()
        shared = {
            q.text: found for q in PARAPHRASES if (found := sets.shared_stems(stemmer, q, files))
        }
        assert not shared

    def test_chat_questions_are_whole_questions(self) -> None:
        lengths = {q.text: len(words(q.text)) for q in PARAPHRASES if q.kind == "chat"}
        assert {t: n for t, n in lengths.items() if not 8 <= n <= 15} == {}

    def test_cross_lingual_questions_are_in_the_other_language(
        self, files: dict[str, str]
    ) -> None:
        for query in (q for q in PARAPHRASES if q.kind == "cross-lingual"):
            asked_latin = not any("а" <= c <= "я" for c in query.text.lower())
            for rel in query.relevant:
                text = files[rel].lower()
                cyrillic = sum("а" <= c <= "я" for c in text)
                assert (cyrillic > len(text) / 3) == asked_latin, (query.text, rel)


@pytest.mark.parametrize("queries", [PARAPHRASES, KEYWORDS], ids=["paraphrase", "keyword"])
class TestBothSets:
    def test_every_relevant_file_exists(
        self, files: dict[str, str], queries: list[sets.Query]
    ) -> None:
        missing = {q.text: r for q in queries for r in q.relevant if r not in files}
        assert not missing
        assert all(q.relevant for q in queries)

    def test_no_query_is_asked_twice(self, queries: list[sets.Query]) -> None:
        assert len({q.text for q in queries}) == len(queries)


def test_the_keyword_set_is_about_forty_queries() -> None:
    assert 35 <= len(KEYWORDS) <= 60


def test_the_folder_is_the_same_on_every_run_and_a_few_hundred_files(tmp_path: Path) -> None:
    first = corpus.documents()
    assert first == corpus.documents()
    assert 200 <= len(first) <= 1_000
    assert any(rel.startswith("english/") for rel in first)
    written = sets.build_folder(tmp_path)
    on_disk = {
        str(p.relative_to(tmp_path)): p.read_text("utf-8")
        for p in tmp_path.rglob("*")
        if p.is_file()
    }
    assert on_disk == sets.folder_files()
    assert written == len(on_disk)

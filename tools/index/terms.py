"""Words to index terms: case- and ё-folded, split on anything that is not a letter or digit,
and reduced to their Snowball stems (Russian for Cyrillic words, English for Latin ones).

"рецепт_шарлотки.txt" and the question "шарлотка" meet at the stem "шарлотк".
`snowballstemmer` runs the C stemmers of PyStemmer when that is installed (a dependency), and
each distinct word is stemmed once per process: a memo answers every later occurrence.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter

import snowballstemmer

_TOKEN = re.compile(r"[^\W_]+")
_CYRILLIC = re.compile(r"[а-я]")
_CAMEL = re.compile(r"(?<=[a-zа-я])(?=[A-ZА-Я])|(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")
MIN_TERM = 1
MAX_TERM = 40
_STOP = (
    "и в во на с со к ко о об от по для из за у а но или ли не что как где когда кто это "
    "the a an of to in on for and or is are what how where when who with by from at be"
)
STOP_WORDS = frozenset(_STOP.split(" "))


def fold(text: str) -> str:
    """Lower case with ё read as е, the way Russian is usually typed, in composed form
    (a name saved on macOS spells "й" as "и" plus a combining mark)."""
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text.lower().replace("ё", "е")


def words(text: str) -> list[str]:
    """Folded words of a text (letters and digits; `_`, `-`, `.` separate)."""
    return _TOKEN.findall(fold(text))


def name_words(name: str) -> list[str]:
    """Words of a file name, also split at camelCase and letter-digit joins ("Policy2024")."""
    return words(_CAMEL.sub(" ", name))


class Stemmer:
    """Snowball stems with a memo; safe to share between threads."""

    def __init__(self, max_memo: int = 200_000) -> None:
        self._ru = snowballstemmer.stemmer("russian")
        self._en = snowballstemmer.stemmer("english")
        self._memo: dict[str, str] = {}
        self._max_memo = max_memo
        self._lock = threading.Lock()

    def stem(self, word: str) -> str:
        """The stem of one folded word (numbers and very long tokens stay as they are)."""
        found = self._memo.get(word)
        if found is not None:
            return found
        if len(word) > MAX_TERM or word.isdigit():
            return word[:MAX_TERM]  # not remembered: numbers alone would fill the memo
        stemmer = self._ru if _CYRILLIC.search(word) else self._en
        with self._lock:
            result: str = stemmer.stemWord(word)
        if len(self._memo) < self._max_memo:
            self._memo[word] = result
        return result

    def terms(self, text: str) -> list[str]:
        """Stems of every word in `text`, in order (duplicates kept, for ranking)."""
        memo = self._memo
        return [memo.get(w) or self.stem(w) for w in words(text)]

    def bag(self, text: str) -> str:
        """The stems of `text` joined by spaces, as an index of stems stores them (the search
        index keeps words as written; the `engines` benchmark builds its indexes from these).

        Each stem occurs as often as its words do, grouped by stem rather than in reading
        order: such an index ranks by how often a term occurs and matches single terms, never
        positions. Counting the words first stems each distinct word of a document once, and
        the joining runs in C.
        """
        stem = self.stem
        counts: dict[str, int] = {}
        for word, n in Counter(words(text)).items():
            term = stem(word)
            counts[term] = counts.get(term, 0) + n
        return "".join((term + " ") * n for term, n in counts.items())

    def name_terms(self, rel_path: str) -> list[str]:
        """Stems of every part of a relative path, with its extension as a term too.

        Joined forms ("q3", "policy2024") and split ones ("q", "3") are both kept, so a
        query matches however the name was typed.
        """
        found = dict.fromkeys(self.stem(w) for w in words(rel_path))
        found.update(dict.fromkeys(self.stem(w) for w in name_words(rel_path)))
        return list(found)

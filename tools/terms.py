"""Words to index terms: case- and ё-folded, split on anything that is not a letter or digit,
and reduced to their Snowball stems (Russian for Cyrillic words, English for Latin ones).

"рецепт_шарлотки.txt" and the question "шарлотка" meet at the stem "шарлотк".
"""

from __future__ import annotations

import re
import threading
import unicodedata

import snowballstemmer

_TOKEN = re.compile(r"[^\W_]+")
_CYRILLIC = re.compile(r"[а-я]")
_CAMEL = re.compile(r"(?<=[a-zа-я])(?=[A-ZА-Я])|(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")
MIN_TERM = 1
MAX_TERM = 40


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

    def __init__(self, max_memo: int = 500_000) -> None:
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
            result = word[:MAX_TERM]
        elif _CYRILLIC.search(word):
            with self._lock:
                result = self._ru.stemWord(word)
        else:
            with self._lock:
                result = self._en.stemWord(word)
        if len(self._memo) < self._max_memo:
            self._memo[word] = result
        return result

    def terms(self, text: str) -> list[str]:
        """Stems of every word in `text`, in order (duplicates kept, for ranking)."""
        memo = self._memo
        return [memo.get(w) or self.stem(w) for w in words(text)]

    def name_terms(self, rel_path: str) -> list[str]:
        """Stems of every part of a relative path, with its extension as a term too.

        Joined forms ("q3", "policy2024") and split ones ("q", "3") are both kept, so a
        query matches however the name was typed.
        """
        found = dict.fromkeys(self.stem(w) for w in words(rel_path))
        found.update(dict.fromkeys(self.stem(w) for w in name_words(rel_path)))
        return list(found)

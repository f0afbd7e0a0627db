"""Which languages the indexed documents are written in, told by the scripts of their words.

Search matches words, so a Russian question finds nothing in English documents. When a search
finds nothing, the model is told the documents' languages so it can ask again in the right one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

LANGUAGE_NAMES = {"ru": "Russian", "en": "English"}
_SHARE = 0.1
_SAMPLE = 200_000
_TEXT_SAMPLE = 2048
_NOT_CYRILLIC = re.compile(r"[^а-яёА-ЯЁ]+")
_NOT_LATIN = re.compile(r"[^a-zA-Z]+")


def _script(term: str) -> str | None:
    for ch in term:
        if "а" <= ch <= "я" or ch == "ё":
            return "ru"
        if "a" <= ch <= "z":
            return "en"
    return None


def languages_of(terms: Iterable[str]) -> list[str]:
    """The languages ("ru", "en") each holding at least a tenth of these words, most common
    first; a sample of them is enough to tell."""
    counts = {"ru": 0, "en": 0}
    for seen, term in enumerate(terms):
        if seen >= _SAMPLE:
            break
        script = _script(term)
        if script is not None:
            counts[script] += 1
    return common_languages(counts)


def common_languages(counts: Mapping[str, int]) -> list[str]:
    """The languages holding at least a tenth of `counts` (words or documents), most common
    first."""
    total = sum(counts.values())
    if not total:
        return []
    common = [code for code, n in counts.items() if n / total >= _SHARE]
    return sorted(common, key=lambda code: -counts[code])


def text_language(text: str) -> str | None:
    """The language most letters of a text's start are written in (None: neither)."""
    sample = text[:_TEXT_SAMPLE]
    russian = len(_NOT_CYRILLIC.sub("", sample))
    english = len(_NOT_LATIN.sub("", sample))
    if not russian and not english:
        return None
    return "ru" if russian >= english else "en"

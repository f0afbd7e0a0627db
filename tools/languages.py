"""Which languages the indexed documents are written in, told by the scripts of their words.

Search matches words, so a Russian question finds nothing in English documents. When a search
finds nothing, the model is told the documents' languages so it can ask again in the right one.
"""

from __future__ import annotations

from collections.abc import Iterable

LANGUAGE_NAMES = {"ru": "Russian", "en": "English"}
_SHARE = 0.1
_SAMPLE = 200_000


def _script(term: str) -> str | None:
    for ch in term:
        if "а" <= ch <= "я" or ch == "ё":
            return "ru"
        if "a" <= ch <= "z":
            return "en"
    return None


def languages_of(terms: Iterable[str]) -> list[str]:
    """The languages ("ru", "en") each holding at least a tenth of the index's words, most
    common first; a sample of the vocabulary is enough to tell."""
    counts = {"ru": 0, "en": 0}
    for seen, term in enumerate(terms):
        if seen >= _SAMPLE:
            break
        script = _script(term)
        if script is not None:
            counts[script] += 1
    total = sum(counts.values())
    if not total:
        return []
    common = [code for code, n in counts.items() if n / total >= _SHARE]
    return sorted(common, key=lambda code: -counts[code])

"""Keyword and meaning results merged into one ranking, each side trusted as far as it earns.

Plain reciprocal-rank fusion treats both sides alike, and loses: an English question over
Russian documents makes the keyword side return English documents that share its common
words, and they outvote the one the meaning side found. So the keyword side's evidence is
weighed first. A keyword hit is trusted when it holds every word of the query, those words are
rare in the index, and the document is written in the query's language: such a hit leads,
ahead of anything only the meaning side found. Any other keyword hit counts for a quarter of
a meaning hit of the same rank, so the meaning side leads unless both sides agree.

The meaning side's best file always keeps a place (the second, when the keyword side's
trusted hits fill the first ones): a keyword match on rare words can still be the wrong file
(a word in passing, six copies of one newsletter), and when the two sides disagree the list
shows each side's best guess.

The meaning side always has a nearest file, however far. With the query centred on the
folder (`centre`), a file whose similarity is not above 0 leans more to the folder's average
than to the query and is not counted as found by meaning; without the centre (a build
just begun) the rule is relative: below `NEAR_SHARE` of the best one's similarity. Either way
a small folder's every file is not "found".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

RANK_DAMPING = 60
"""The usual constant of reciprocal-rank fusion: rank 1 is not worth much more than rank 5."""
WEAK_WORDS = 0.25
"""What an untrusted keyword hit weighs beside a meaning hit of the same rank."""
TRUSTED = 2.0
"""Lifts a trusted keyword hit above every hit without such evidence."""
NEAR_SHARE = 0.5
"""A meaning hit counts when its similarity is at least this share of the best one's."""


@dataclass(frozen=True)
class KeywordEvidence:
    """What the keyword side knows about how well it matched.

    `every`: the results holding every query word; `rare`: whether every query word is rare
    among the documents; `query_language` and `languages` (each result's): whether they are
    written alike.
    """

    every: frozenset[str] = frozenset()
    rare: bool = False
    query_language: str | None = None
    languages: Mapping[str, str | None] = field(default_factory=dict)

    def trusts(self, path: str) -> bool:
        """Whether the keyword hit `path` is strong enough to lead."""
        if not self.rare or path not in self.every:
            return False
        language = self.languages.get(path)
        return language is None or self.query_language is None or language == self.query_language


@dataclass(frozen=True)
class Fused:
    """One result of the fused ranking and the sides that found it ("words", "meaning")."""

    path: str
    found_by: tuple[str, ...]


def near(similarities: Sequence[float], *, centred: bool = False) -> int:
    """How many of the meaning side's hits (best first) lie near enough to count; `centred`:
    the similarities are to a query centred on the folder."""
    if not similarities or similarities[0] <= 0:
        return 0
    if centred:
        return sum(1 for similarity in similarities if similarity > 0)
    floor = similarities[0] * NEAR_SHARE
    return sum(1 for similarity in similarities if similarity >= floor)


def fuse(
    words: Sequence[str], meaning: Sequence[str], evidence: KeywordEvidence, limit: int
) -> list[Fused]:
    """The best `limit` paths of both rankings (each best first; `meaning` cut by `near`)."""
    scores: dict[str, float] = {}
    sides: dict[str, list[str]] = {}
    for rank, path in enumerate(words, 1):
        trusted = evidence.trusts(path)
        weight = 1.0 if trusted else WEAK_WORDS
        scores[path] = (TRUSTED if trusted else 0.0) + weight / (RANK_DAMPING + rank)
        sides.setdefault(path, []).append("words")
    for rank, path in enumerate(meaning, 1):
        scores[path] = scores.get(path, 0.0) + 1.0 / (RANK_DAMPING + rank)
        sides.setdefault(path, []).append("meaning")
    order = sorted(scores, key=lambda p: -scores[p])[:limit]
    if meaning and meaning[0] not in order:
        order = [*order[:1], meaning[0], *order[1:]][:limit]
    return [Fused(path, tuple(sides[path])) for path in order]

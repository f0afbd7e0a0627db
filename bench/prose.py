"""Seeded prose in Russian and English, built from real word forms.

Fast enough for ~200 MB: words are drawn in bulk with cumulative weights (a Zipf-like spread,
so some words are everywhere and some are rare), then cut into sentences and paragraphs.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from bench import lexicon


@dataclass(frozen=True)
class Vocabulary:
    """Word forms of one language with cumulative weights for `random.choices`."""

    lang: str
    words: tuple[str, ...]
    cum_weights: tuple[float, ...]
    lemmas: tuple[tuple[str, ...], ...]

    @classmethod
    def build(cls, lang: str, exclude: frozenset[str] = frozenset()) -> Vocabulary:
        """All forms of `lang`, leaving out the lemmas in `exclude` (kept for topic documents)."""
        if lang == "ru":
            groups = (
                lexicon.forms(lexicon.RU_NOUNS)
                + lexicon.forms(lexicon.RU_VERBS)
                + lexicon.forms(lexicon.RU_ADJECTIVES)
            )
            glue = lexicon.RU_GLUE
        else:
            groups = lexicon.forms(lexicon.EN_WORDS)
            glue = lexicon.EN_GLUE
        groups = [g for g in groups if g[0] not in exclude]
        words: list[str] = []
        weights: list[float] = []
        for rank, group in enumerate(groups):
            share = 1.0 / (rank + 2) ** 0.9
            for form in group:
                words.append(form)
                weights.append(share / len(group))
        for word in glue:
            words.append(word)
            weights.append(0.12)
        return cls(
            lang=lang,
            words=tuple(words),
            cum_weights=tuple(itertools.accumulate(weights)),
            lemmas=tuple(tuple(g) for g in groups),
        )


def _sentences(rng: random.Random, words: list[str]) -> list[str]:
    out: list[str] = []
    start = 0
    while start < len(words):
        end = start + rng.randint(6, 15)
        chunk = words[start:end]
        start = end
        if rng.random() < 0.15:
            chunk.insert(rng.randrange(len(chunk) + 1), str(rng.randint(1, 2030)))
        first = chunk[0]
        chunk[0] = first[:1].upper() + first[1:]
        out.append(" ".join(chunk) + rng.choice(".....?!;"[:6]))
    return out


def paragraphs(
    rng: random.Random, vocab: Vocabulary, approx_chars: int, topic: tuple[str, ...] = ()
) -> list[str]:
    """Paragraphs of about `approx_chars` characters in total; topic forms are frequent."""
    count = max(8, approx_chars // 7)
    words = rng.choices(vocab.words, cum_weights=vocab.cum_weights, k=count)
    if topic:
        for index in range(0, count, rng.randint(20, 40)):
            words[index] = rng.choice(topic)
    sentences = _sentences(rng, words)
    result: list[str] = []
    start = 0
    while start < len(sentences):
        end = start + rng.randint(3, 8)
        result.append(" ".join(sentences[start:end]))
        start = end
    return result


def text(
    rng: random.Random, vocab: Vocabulary, approx_chars: int, topic: tuple[str, ...] = ()
) -> str:
    """Paragraphs separated by blank lines."""
    return "\n\n".join(paragraphs(rng, vocab, approx_chars, topic)) + "\n"

"""Small helpers about paths shown to the model: modification times and close-name guesses.

Shared by listing, reading and search, so none of them imports another.
"""

from __future__ import annotations

from datetime import UTC, datetime

from tools.index.terms import Stemmer, fold


def modified_iso(mtime_ns: int) -> str:
    """A file's modification time for the model: ISO 8601, UTC, seconds."""
    stamp = datetime.fromtimestamp(mtime_ns / 1e9, tz=UTC).isoformat(timespec="seconds")
    return stamp.replace("+00:00", "Z")


def suggest_paths(
    missing: str, candidates: list[str], stemmer: Stemmer, count: int = 3
) -> list[str]:
    """Existing paths whose names look like the missing one (word forms count); blocking."""
    base = fold(missing.replace("\\", "/").rsplit("/", 1)[-1])
    stem_base = base.rsplit(".", 1)[0] if "." in base else base
    wanted = set(stemmer.name_terms(stem_base))
    if not base or not candidates:
        return []
    from rapidfuzz import fuzz, process  # noqa: PLC0415 - loaded at the first miss, not at start

    names = [fold(c.rsplit("/", 1)[-1]) for c in candidates]
    fuzzy = process.extract(base, names, scorer=fuzz.WRatio, limit=50, score_cutoff=50)
    scores: dict[int, float] = {i: score for _, score, i in fuzzy}
    if wanted:
        for i, cand in enumerate(candidates):
            common = wanted & set(stemmer.name_terms(cand))
            if common:
                scores[i] = scores.get(i, 0.0) + 40.0 * len(common)
    best = sorted(scores.items(), key=lambda kv: (-kv[1], candidates[kv[0]]))
    return [candidates[i] for i, score in best[:count] if score >= 70]


def did_you_mean(paths: list[str]) -> str:
    """The hint that offers close paths."""
    return "Did you mean: " + ", ".join(f"'{p}'" for p in paths) + "?"

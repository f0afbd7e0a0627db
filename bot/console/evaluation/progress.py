"""The progress bar on standard error while questions are asked (tqdm: already installed with
the vector index, no dependencies of its own); nothing at all when that is not a terminal, so
logs and CI output stay clean."""

from __future__ import annotations

from typing import TextIO

from tqdm import tqdm


class ProgressBar:
    """Questions done of the total, with how many passed so far."""

    def __init__(self, total: int, stream: TextIO, *, done: int = 0) -> None:
        self._passed = 0
        self._bar = tqdm(
            total=total,
            initial=done,
            file=stream,
            disable=not stream.isatty(),
            unit="question",
            dynamic_ncols=True,
            leave=False,
        )

    def describe(self, model: str) -> None:
        """Name the model whose questions come next."""
        self._bar.set_description(model)

    def advance(self, *, passed: bool) -> None:
        """One more question done."""
        self._passed += passed
        self._bar.update(1)
        self._bar.set_postfix(passed=self._passed)  # redraws now: questions take seconds each

    def close(self) -> None:
        """Take the bar off the terminal."""
        self._bar.close()

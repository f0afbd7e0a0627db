"""One line of `python -m bot check`: what was checked, whether it passed, and why."""

from __future__ import annotations

from dataclasses import dataclass

from tools.jail.documents_folder import shown

__all__ = ["Outcome", "failed", "passed", "shown", "skipped"]

_MARKS = {True: "✓", False: "✗", None: "·"}


@dataclass(frozen=True, slots=True)
class Outcome:
    """`ok` is None for a check that was skipped (it neither passes nor fails)."""

    subject: str
    ok: bool | None
    text: str

    def line(self) -> str:
        """How the terminal shows it: `✓ subject: text`."""
        return f"{_MARKS[self.ok]} {self.subject}: {self.text}"


def passed(subject: str, text: str) -> Outcome:
    """A check that passed."""
    return Outcome(subject, True, text)


def failed(subject: str, text: str) -> Outcome:
    """A check that failed; `text` says why, without any secret."""
    return Outcome(subject, False, text)


def skipped(subject: str, text: str) -> Outcome:
    """A check that was not run."""
    return Outcome(subject, None, text)

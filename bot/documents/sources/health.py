"""Whether a source works, as its admins hear it: told once when it breaks, reminded at most once
a day while it stays broken, told once when it works again.

A source is in trouble when its listing failed (the server stopped, refused the credentials,
timed out, answered nonsense): such a pass deletes nothing. A pass whose listing came through
is working, even when it held deletions back (the admins are asked about those apart), could
not fetch some items or refused some paths (`/sources` shows those).

What the admins were told is kept beside the source's state (`StateStore.trouble`), so a
restart, `python -m bot sources sync` or another worker on the same DATA_DIR does not tell them
again. It is written before they are told: at worst one notice is lost, never repeated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from bot.documents.sources.remote import Problem
from bot.documents.sources.state import PassReport, Trouble

REMIND_AFTER_S = 86400.0
"""A source still failing is mentioned again at most this often (a day)."""

_UNLISTED = frozenset(get_args(Problem))
"""The problems of a pass whose listing failed (a `SourceError`'s; `broken` for a kind's bug):
the mirror's own (`guard`, `suspicious`, `fetch`, `unsafe`) come after a listing."""
_NOTHING_DELETED = "; nothing was deleted"


@dataclass(frozen=True, slots=True)
class Health:
    """What to tell a source's admins after a pass: it `failed` (for the first time since it
    worked), it is `still` failing (a day's reminder), or it `recovered`. `since` is when it
    began failing; `report` is the pass just run."""

    event: Literal["failed", "still", "recovered"]
    since: float
    report: PassReport

    @property
    def reason(self) -> str:
        """The failure in one line, the engine's own (no secret), without the "nothing was
        deleted" the notice says in the admin's language."""
        return (self.report.error or self.report.problem or "").removesuffix(_NOTHING_DELETED)


def listing_failed(report: PassReport) -> bool:
    """Whether the pass failed before it could change anything: its listing did not come."""
    return report.problem in _UNLISTED


def judge(
    report: PassReport, told: Trouble | None, now: float
) -> tuple[Health | None, Trouble | None]:
    """What to tell after `report`, given what was told (`told`), and what is told after."""
    if not listing_failed(report):
        if told is None:
            return None, None
        return Health("recovered", told.since, report), None
    if told is None:
        return Health("failed", report.at, report), Trouble(report.at, now)
    if now - told.told_at >= REMIND_AFTER_S:
        return Health("still", told.since, report), Trouble(told.since, now)
    return None, told

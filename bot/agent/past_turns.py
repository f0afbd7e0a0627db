"""Which past turns a request keeps: trimmed in steps, so the request's start stays put.

Model servers discount a prompt prefix they have seen before. Trimming one old turn at a time
changes the start of every request of a long conversation; here a trim frees head-room for
several more requests, and the past is otherwise left exactly as the previous request sent it.

No state is stored: the decision replays the conversation's requests (every round of every
past turn, with the room its current turn left) and applies the same rule at each, so every
worker, and the same worker after a restart, arrives at the cut the previous request used.
The past always fits the room it is given, with the same priorities as before: old tool
traffic goes first (oldest first, the newest turn's last), then whole turns, oldest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

HEADROOM = 0.5
"""The share of the past's room a trim leaves free: a trim is due again after several turns."""


@dataclass(frozen=True, slots=True)
class TurnSizes:
    """One past turn's tokens: whole, compacted, and its current turn at each of its requests."""

    full: int
    compact: int
    asked: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Cut:
    """Turns before `dropped` are left out; turns from there to `compact_until` go compacted;
    the rest go whole. `note`: the note saying turns were left out is sent."""

    dropped: int
    compact_until: int
    note: bool


class _Plan:
    """The cut as it moves along the replayed requests; it only ever moves forward."""

    def __init__(self, turns: Sequence[TurnSizes], note: int) -> None:
        self._full = [0, *accumulate(t.full for t in turns)]
        self._compact = [0, *accumulate(t.compact for t in turns)]
        self._note = note
        self.dropped = 0
        self.compact_until = 0

    def size(self, dropped: int, compact_until: int, turns: int) -> int:
        """Tokens of the first `turns` past turns under this cut, the note included."""
        note = self._note if dropped else 0
        compacted = self._compact[compact_until] - self._compact[dropped]
        return note + compacted + self._full[turns] - self._full[compact_until]

    def fit(self, turns: int, room: int, target: int) -> None:
        """Make the first `turns` past turns fit `room`; when a trim is due, trim to `target`.

        Compaction stops short of the newest turn while that suffices; dropping keeps the
        newest turn (compacted) while that fits.
        """
        if self.size(self.dropped, self.compact_until, turns) <= room:
            return
        newest_kept = max(self.compact_until, turns - 1)
        if self._compact_to(newest_kept, turns, target, room):
            return
        self.compact_until = turns
        if self.size(self.dropped, turns, turns) <= room:
            return
        for dropped in range(self.dropped + 1, turns):
            if self.size(dropped, turns, turns) <= target:
                self.dropped = dropped
                return
        last_fits = turns > 0 and self.size(turns - 1, turns, turns) <= room
        self.dropped = max(self.dropped, turns - 1 if last_fits else turns)

    def _compact_to(self, last: int, turns: int, target: int, room: int) -> bool:
        for until in range(self.compact_until, last + 1):
            if self.size(self.dropped, until, turns) <= target:
                self.compact_until = until
                return True
        if self.size(self.dropped, last, turns) <= room:
            self.compact_until = last
            return True
        return False


def plan_cut(
    turns: Sequence[TurnSizes], *, space: int, room: int, note: int, headroom: float
) -> Cut:
    """The cut for a request whose past turns are `turns` and whose past may use `room` tokens.

    `space`: what the past and the current turn share (the budget less the system prompt and
    the tools), from which each replayed request's room is its current turn's size less.
    `headroom`: the share of the room a trim leaves free; 0 trims only what must go, one turn
    at a time, from scratch on every request (nothing is replayed).
    """
    plan = _Plan(turns, note)
    if headroom > 0:
        for index, sizes in enumerate(turns):
            for asked in sizes.asked:
                replayed = max(space - asked, 0)
                plan.fit(index, replayed, _target(replayed, headroom))
    plan.fit(len(turns), room, _target(room, headroom))
    dropped = plan.dropped
    note_fits = dropped > 0 and (dropped < len(turns) or note <= room)
    return Cut(dropped, max(plan.compact_until, dropped), note_fits)


def _target(room: int, headroom: float) -> int:
    return int(room * (1 - headroom))

"""Which past turns a request keeps: trimmed in steps, so the request's start stays put.

Model servers discount a prompt prefix they have seen before. Dropping one old turn at a time
changes everything after the system prompt on every request of a long conversation; here a
drop frees head-room for several more turns, and the past is otherwise left exactly as the
previous request sent it. Compacting (a turn's tool traffic going) keeps the start up to the
turn compacted, so it still goes turn by turn, oldest first.

Before any of that, the tool results of all but the newest past turns go as stubs
(`bot.agent.pruning`): a turn is sent pruned once it is no longer among the newest, which the
replay counts too (a turn had its results whole in the requests right after it).

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
"""The share of the past's room a drop leaves free: the next drop is due several turns later."""


@dataclass(frozen=True, slots=True)
class TurnSizes:
    """One past turn's tokens: whole, compacted, and its current turn at each of its requests;
    `pruned`: with its tool results as stubs (None: the same as whole)."""

    full: int
    compact: int
    asked: tuple[int, ...]
    pruned: int | None = None


@dataclass(frozen=True, slots=True)
class Cut:
    """Turns before `dropped` are left out; turns from there to `compact_until` go compacted;
    the rest go whole. `note`: the note saying turns were left out is sent."""

    dropped: int
    compact_until: int
    note: bool


class _Plan:
    """The cut as it moves along the replayed requests; it only ever moves forward."""

    def __init__(self, turns: Sequence[TurnSizes], note: int, full_turns: int) -> None:
        self._full = [0, *accumulate(t.full for t in turns)]
        self._pruned = [0, *accumulate(t.full if t.pruned is None else t.pruned for t in turns)]
        self._compact = [0, *accumulate(t.compact for t in turns)]
        self._note = note
        self._full_turns = full_turns
        self.dropped = 0
        self.compact_until = 0

    def size(self, dropped: int, compact_until: int, turns: int) -> int:
        """Tokens of the first `turns` past turns under this cut, the note included: the
        newest `full_turns` of them whole, the others pruned."""
        note = self._note if dropped else 0
        compacted = self._compact[compact_until] - self._compact[dropped]
        whole_from = max(compact_until, turns - self._full_turns)
        pruned = self._pruned[whole_from] - self._pruned[compact_until]
        return note + compacted + pruned + self._full[turns] - self._full[whole_from]

    def fit(self, turns: int, room: int, target: int) -> None:
        """Make the first `turns` past turns fit `room`: compact as few as that takes, oldest
        first; if that is not enough, drop a block of the oldest, down to `target`.

        Compacting keeps the start of the request up to the first turn compacted, so it goes
        turn by turn; a drop changes everything after the system prompt, so it makes room for
        several more turns at once. The newest turn stays (compacted) while it fits.
        """
        if self.size(self.dropped, self.compact_until, turns) <= room:
            return
        for until in range(self.compact_until, turns + 1):
            if self.size(self.dropped, until, turns) <= room:
                self.compact_until = until
                return
        self.compact_until = turns
        for dropped in range(self.dropped + 1, turns):
            if self.size(dropped, turns, turns) <= target:
                self.dropped = dropped
                return
        last_fits = turns > 0 and self.size(turns - 1, turns, turns) <= room
        self.dropped = max(self.dropped, turns - 1 if last_fits else turns)


def plan_cut(
    turns: Sequence[TurnSizes],
    *,
    space: int,
    room: int,
    note: int,
    headroom: float,
    start: Cut | None = None,
    full_turns: int = 0,
) -> Cut:
    """The cut for a request whose past turns are `turns` and whose past may use `room` tokens.

    `space`: what the past and the current turn share (the budget less the system prompt and
    the tools), from which each replayed request's room is its current turn's size less.
    `headroom`: the share of the room a drop leaves free; 0 trims only what must go, one turn
    at a time, from scratch on every request (nothing is replayed).
    `start`: a cut planned already (on other sizes), to be trimmed further if this request
    needs it; nothing is replayed then either.
    `full_turns`: how many of the newest past turns go with their tool results whole (the
    older ones go pruned, as `TurnSizes.pruned` counts them).
    """
    plan = _Plan(turns, note, full_turns)
    if start is not None:
        plan.dropped, plan.compact_until = start.dropped, start.compact_until
    elif headroom > 0:
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

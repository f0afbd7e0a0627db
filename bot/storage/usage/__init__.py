"""Tokens spent on the model, per question, so budgets hold and admins see what it costs.

One row per model use: who asked (user, chat), which model, what for (`Kind`), the prompt
tokens (of which `cached` the server had seen before, and `images` the pictures took), the
completion tokens, whether they were `estimated` by the bot (a server that reports no usage,
as llama-cpp-python's in a stream), and when. A row carries no text. A question's row is keyed
by its chat and message (`question`), so a question answered once is counted once, whichever
worker answered it.

A budgeted question is first *reserved* (`reserve`): a row with no tokens yet, written only
when the asker's spending leaves room, in one step that two workers cannot interleave. While
one of a person's questions is in flight and that person is near the end of a budget, a second
is refused, so a race never takes anyone more than one question past it. `record` fills the
reservation in (or writes a row of its own); `release` drops a reservation that asked nothing.
Rows are deleted by the history's rules (`delete_older`, HISTORY_DAYS).

`SqliteUsage` (sqlite.py) keeps them in a file in DATA_DIR, `PostgresUsage` (postgres.py) in
the shared database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

Kind = Literal["answer", "transcription", "embeddings"]
"""What the model was used for: a chat answer, a voice question heard, texts made vectors."""

Who = Literal["user", "chat"]

STALE_AFTER_S = 15 * 60.0
"""A reservation older than this belongs to a question that died with its worker: it no
longer counts as in flight (and the history's sweep deletes it)."""


@dataclass(frozen=True, slots=True)
class Tokens:
    """Tokens of one use or a sum of them; `cached` is the part of `prompt` the server had
    seen before (and bills at its cached price). In a sum, `estimated` is the part of `total`
    the bot estimated because the server reported none: figures holding some are shown marked."""

    prompt: int = 0
    cached: int = 0
    completion: int = 0
    estimated: int = 0
    images: int = 0
    """The part of `prompt` that pictures took (by the provider's rule for their size)."""

    @property
    def total(self) -> int:
        """What a budget counts: every prompt token (cached ones too) and every completion."""
        return self.prompt + self.completion

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(
            self.prompt + other.prompt,
            self.cached + other.cached,
            self.completion + other.completion,
            self.estimated + other.estimated,
            self.images + other.images,
        )


@dataclass(frozen=True, slots=True)
class Use:
    """One use of a model, as it is recorded."""

    model: str
    kind: Kind
    tokens: Tokens
    user_id: int | None = None
    chat_id: int | None = None
    question: str | None = None
    """The question's key (`question_key`); None for uses that belong to no question."""
    thread_id: int | None = None
    """The forum topic the question was asked in, whose scope decides who sees its use."""
    estimated: bool = False
    """Whether `tokens` were estimated by the bot: the server reported no usage."""


@dataclass(frozen=True, slots=True)
class Allowance:
    """One budget a question must fit: whose (a user's or a chat's), counted since when (Unix
    time), how many tokens, and from how many on a second question waits for the first."""

    who: Who
    id: int
    since: float
    tokens: int
    near: int
    period: Literal["day", "month"] = "day"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a question was not reserved: the allowance it did not fit, and whether only
    because another of the asker's questions was in flight near its end."""

    allowance: Allowance
    busy: bool = False


@dataclass(frozen=True, slots=True)
class UsageSum:
    """Tokens summed for one user, chat (and forum topic), model, kind and day (days counted
    from the Unix epoch in the report's time zone)."""

    user_id: int | None
    chat_id: int | None
    model: str
    kind: Kind
    day: int
    tokens: Tokens
    thread_id: int | None = None
    """The forum topic, for use in one."""


class UsageStore(Protocol):
    """Where model use is reserved, recorded and summed."""

    async def reserve(
        self, question: str, *, user_id: int, chat_id: int, allowances: Sequence[Allowance]
    ) -> Refusal | None:
        """Reserve the question when every allowance has room (None), else say which has not;
        a question reserved or recorded before is let through again."""

    async def record(self, use: Use) -> bool:
        """Keep one use (filling its question's reservation in); False when that question was
        recorded already."""

    async def release(self, question: str) -> None:
        """Drop the question's reservation when nothing was recorded for it."""

    async def spent(self, *, who: Who, id: int, since: float) -> Tokens:
        """Tokens recorded for one user or chat since `since` (Unix time)."""

    async def sums(self, since: float, *, utc_offset_s: float = 0.0) -> list[UsageSum]:
        """Every recorded use since `since`, summed per user, chat, model, kind and day, the
        days starting at midnight `utc_offset_s` seconds east of UTC."""

    async def claim_warning(self, subject: str, period: str) -> bool:
        """Whether the warning about `subject`'s budget for `period` is this caller's to send
        (True once per subject and period, across workers)."""

    async def delete_older(self, cutoff: float) -> int:
        """Delete uses (and warnings) before `cutoff` (Unix time); how many uses."""

    async def close(self) -> None:
        """Finish the writes asked for and release the storage."""


def question_key(chat_id: int, message_id: int, kind: Kind = "answer") -> str:
    """The key a question's use is recorded under: one per message and kind."""
    return f"{chat_id}:{message_id}" + ("" if kind == "answer" else f":{kind}")

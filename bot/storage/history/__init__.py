"""The conversation log: the `History` the agent writes and reads, and its records.

`sqlite.py` keeps it in one SQLite file in DATA_DIR (`HistoryStore`: an append-only log on a
writer thread of its own, crash-safe; `in_use.py` tells a crash from another process holding
the file), `postgres.py` in the shared database (`PostgresHistory`), which only a process with
DATABASE_URL imports. `Usage` lives here, below the agent that fills it, so both stores can keep
it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

Message = dict[str, Any]
"""One chat message as the model's API has it."""


@dataclass(frozen=True, slots=True)
class Usage:
    """Per-question accounting, from the server's `usage` where it reports one."""

    rounds: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    elapsed_s: float = 0.0
    cached_prompt_tokens: int = 0
    """The part of `prompt_tokens` the server had seen before (its cached prefix), where it
    reports one (`prompt_tokens_details.cached_tokens`)."""
    estimated: bool = False
    """Some of the token counts are the bot's own estimate: the server reported no usage
    for at least one call (llama-cpp-python's server, for one, sends none in a stream)."""
    image_tokens: int = 0
    """The part of `prompt_tokens` the question's pictures took, by the provider's published
    rule for their size and `detail` (`bot.agent.pictures.picture_tokens`), every call that
    carried them counted."""


def own_conversation_keys(user_id: int) -> tuple[str, str, str]:
    """What `/forget` deletes of one person, as a key and two LIKE patterns: their private
    chat, its forum topics, and their own conversations in groups (and groups' topics)."""
    return f"chat:{user_id}", f"chat:{user_id}:topic:%", f"chat:%:user:{user_id}"


class HistoryUnavailable(Exception):
    """The history cannot be used right now; the text says why (for the health check)."""


class History(Protocol):
    """The conversation log the agent writes and reads: `HistoryStore` (sqlite.py, one
    process) or `PostgresHistory` (postgres.py, shared by several workers)."""

    async def begin_turn(self, key: str, question: Message) -> int:
        """Start a turn in the key's current conversation with the user's message; its id."""
        ...

    async def append(self, turn: int, messages: Sequence[Message]) -> None:
        """Add messages to an open turn, in order."""
        ...

    async def finish_turn(self, turn: int, *, done: bool, usage: Usage | None = None) -> None:
        """Close a turn: `done` turns are sent to the model later, failed ones never."""
        ...

    async def rewrite_question(self, turn: int, question: Message) -> None:
        """Replace an open turn's first message, the user's (a picture's description, known
        only after the answer, replaces its placeholder)."""
        ...

    async def reset(self, key: str) -> None:
        """Start a new, empty conversation under `key`; the old one is kept."""
        ...

    async def load_turns(self, key: str, limit: int) -> list[list[Message]]:
        """The last `limit` finished turns of the key's current conversation, oldest first."""
        ...

    async def last_usage(self, key: str) -> Usage | None:
        """The accounting of the key's last finished question, if any."""
        ...

    async def turn_states(self, key: str) -> list[str]:
        """The state of every turn in the key's current conversation, oldest first."""
        ...

    async def conversation_count(self, key: str) -> int:
        """How many conversations (the current one and the reset ones) the key has."""
        ...

    async def ping(self) -> None:
        """Raise `HistoryUnavailable` unless the log can serve."""
        ...

    async def forget_user(self, user_id: int) -> int:
        """Delete every conversation of one person, in private and in groups; how many."""
        ...

    async def delete_older(self, cutoff: float) -> int:
        """Delete turns begun before `cutoff` (Unix time); how many."""
        ...

    async def close(self) -> None:
        """Finish pending writes and release what the log holds."""
        ...

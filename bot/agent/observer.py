"""What the agent tells whoever watches it: questions ended, model calls made, tools run.

The agent knows nothing of how this is recorded (the composition root passes in an object that
keeps Prometheus metrics); it only promises to call these methods, from the event loop, with
values from fixed sets: an outcome, an error kind, a tool name the toolbox offers (any other
name the model invents is reported as `unknown`), a model name of the configured chain. No
user text, ids or secrets.
"""

from __future__ import annotations

from typing import Protocol

UNKNOWN_TOOL = "unknown"
"""The tool name reported for a call to a tool the toolbox does not offer."""


class Observer(Protocol):
    """Hears what happened while the agent answered; every method returns at once."""

    def question_answered(self, seconds: float) -> None:
        """A question was answered after `seconds`."""
        ...

    def question_failed(self, kind: str) -> None:
        """A question ended without an answer: an `AgentError.kind`, `unexpected` or
        `cancelled`."""
        ...

    def model_called(self, *, ok: bool, prompt_tokens: int, completion_tokens: int) -> None:
        """One request to the model server ended (`ok` False: it raised)."""
        ...

    def tool_called(self, tool: str, *, ok: bool, seconds: float) -> None:
        """One tool call ended (`ok` False: the model got an error result)."""
        ...

    def model_failed_over(self, model: str, fallback: str) -> None:
        """A call `model` failed with an outage goes to `fallback` (both chain names)."""
        ...


class NoObserver:
    """The observer of an agent nobody watches: every report is dropped."""

    def question_answered(self, seconds: float) -> None:
        """Dropped."""

    def question_failed(self, kind: str) -> None:
        """Dropped."""

    def model_called(self, *, ok: bool, prompt_tokens: int, completion_tokens: int) -> None:
        """Dropped."""

    def tool_called(self, tool: str, *, ok: bool, seconds: float) -> None:
        """Dropped."""

    def model_failed_over(self, model: str, fallback: str) -> None:
        """Dropped."""

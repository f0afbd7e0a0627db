"""What a log line is about: the conversation and the question being answered, where known.

Each question runs in its own task, so context variables follow it through every await and
into the tasks it starts (tool calls run concurrently), and never leak into another chat's
question. The front door sets the conversation when an update arrives; the agent adds the
question id (its turn in the history) once the question is stored. `LogContextFilter` copies
both onto every record, so any formatter can show them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

CONVERSATION: ContextVar[str | None] = ContextVar("log_conversation", default=None)
"""The conversation key (`chat:<id>`, `chat:<id>:user:<id>`, `terminal`) being served."""
QUESTION: ContextVar[int | None] = ContextVar("log_question", default=None)
"""The id of the question being answered: its turn in the history store."""


@contextmanager
def conversation_context(conversation: str) -> Iterator[None]:
    """Lines logged inside the block name `conversation`."""
    token = CONVERSATION.set(conversation)
    try:
        yield
    finally:
        CONVERSATION.reset(token)


@contextmanager
def question_context(conversation: str, question: int) -> Iterator[None]:
    """Lines logged inside the block name the conversation and the question's id."""
    conversation_token = CONVERSATION.set(conversation)
    question_token = QUESTION.set(question)
    try:
        yield
    finally:
        QUESTION.reset(question_token)
        CONVERSATION.reset(conversation_token)


class LogContextFilter(logging.Filter):
    """Stamps `conversation` and `question` (None where unknown) on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.conversation = CONVERSATION.get()
        record.question = QUESTION.get()
        return True

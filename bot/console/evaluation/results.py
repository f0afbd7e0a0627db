"""One question's outcome for one model, as the table, the reports and the state file keep it."""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.console.evaluation.questions import Question


def question_key(model: str, number: int, question: Question) -> str:
    """What a finished question is known by in the state file: the model, its number and its
    content, so an edited question is asked again and an unchanged one is not."""
    content = question.model_dump_json().encode()
    return f"{model}#{number}#{hashlib.sha256(content).hexdigest()[:16]}"


class QuestionResult(BaseModel):
    """How one model did on one question.

    `error` is why no answer came (the model server failed or refused): the question counts
    as failed. `first_token_s` is when the first text of an answer was shown; None when the
    answer was not streamed. `quotes_found`/`quotes_invented`: the answer's quotes that the
    documents read do or do not hold (QUOTES=verify).
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    key: str
    model: str
    number: int
    question: str
    passed: bool
    missing: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    cited_right: bool | None = None
    error: str | None = None
    answer: str = ""
    sources: tuple[str, ...] = ()
    quotes_found: int = 0
    quotes_invented: int = 0
    rounds: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    first_token_s: float | None = None
    elapsed_s: float = 0.0

    @property
    def why(self) -> str:
        """Why it failed, in one line; empty when it passed."""
        reasons = []
        if self.error:
            reasons.append(self.error)
        if self.missing:
            reasons.append("missing " + ", ".join(f"'{fact}'" for fact in self.missing))
        if self.forbidden:
            reasons.append("has " + ", ".join(f"'{fact}'" for fact in self.forbidden))
        return "; ".join(reasons)

    def line(self) -> str:
        """The state file's line for it (JSON, no line breaks inside)."""
        return self.model_dump_json() + "\n"

    @classmethod
    def from_json(cls, data: Any) -> QuestionResult:
        """A result read back from the state file."""
        return cls.model_validate_json(data)

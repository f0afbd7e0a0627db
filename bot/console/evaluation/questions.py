"""The file of questions `python -m bot eval` runs: TOML, validated, every problem named.

Each `[[questions]]` table holds the `question`, the facts the answer `must` contain (all of
them, or any with `must_mode = "any"`), the facts it must not contain (`must_not`) and the
files it should read (`cite`, sandbox paths). A fact is plain text, matched ignoring case and
runs of white space, or `re:` and a Python regular expression, searched ignoring case.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

REGEX_PREFIX = "re:"


class QuestionFileError(Exception):
    """The file of questions cannot be used; the text names the file, question and field."""


def _listed(value: object) -> object:
    """A single fact may be written without brackets."""
    return [value] if isinstance(value, str) else value


def _fact(value: str) -> str:
    """A fact that is not empty, and a regular expression that compiles."""
    if not value.strip():
        msg = "a fact is empty"
        raise ValueError(msg)
    if value.startswith(REGEX_PREFIX):
        try:
            re.compile(value[len(REGEX_PREFIX) :])
        except re.error as exc:
            msg = f"{value!r} is not a regular expression: {exc}"
            raise ValueError(msg) from exc
    return value


Fact = Annotated[str, BeforeValidator(lambda v: _fact(v) if isinstance(v, str) else v)]
Facts = Annotated[list[Fact], BeforeValidator(_listed)]


class Question(BaseModel):
    """One question and what its answer is checked for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str = Field(min_length=1, description="What is asked, as a user would.")
    must: Facts = Field(min_length=1, description="Facts the answer contains.")
    must_mode: Literal["all", "any"] = Field(
        default="all", description="all: every fact of `must`; any: at least one."
    )
    must_not: Facts = Field(default_factory=list, description="Facts the answer never contains.")
    cite: list[str] = Field(
        default_factory=list, description="Sandbox paths the answer should read and cite."
    )


class QuestionFile(BaseModel):
    """The whole file: a list of `[[questions]]` tables."""

    model_config = ConfigDict(extra="forbid")

    questions: list[Question] = Field(min_length=1)


def load_questions(path: Path) -> list[Question]:
    """Read and check `path`; raises `QuestionFileError` saying what to fix, where."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        msg = f"{path}: cannot be read: {exc.strerror or exc}"
        raise QuestionFileError(msg) from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        msg = f"{path}: is not UTF-8 text ({exc.reason} at byte {exc.start})"
        raise QuestionFileError(msg) from exc
    except tomllib.TOMLDecodeError as exc:
        msg = f"{path}: is not valid TOML: {exc}"
        raise QuestionFileError(msg) from exc
    try:
        return QuestionFile.model_validate(data).questions
    except ValidationError as exc:
        lines = [
            f"{path}: {_where(error['loc'])}: {error['msg'].removeprefix('Value error, ')}"
            for error in exc.errors()
        ]
        raise QuestionFileError("\n".join(lines)) from exc


def _where(location: tuple[int | str, ...]) -> str:
    """A pydantic error location as a person counts it: `question 3, field 'must' (item 2)`."""
    if not location or location[0] != "questions":
        return f"field {'.'.join(str(p) for p in location)!r}" if location else "the file"
    if len(location) == 1:
        return "field 'questions' (add [[questions]] tables)"
    parts = [f"question {int(location[1]) + 1}"]
    if len(location) > 2:
        parts.append(f"field {location[2]!r}")
    if len(location) > 3 and isinstance(location[3], int):
        parts.append(f"item {location[3] + 1}")
    return ", ".join(parts)

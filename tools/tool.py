"""One tool as one object: what the model is told, how its arguments are checked, how it runs.

Everything the rest of the program needs to know about a tool is here: its name and
description, the argument model its JSON Schema comes from, an example for error hints, and
which argument describes a call in a progress line. Adding a tool means adding one of these.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from tools.errors import ToolError
from tools.jail.scope import Scope
from tools.results import ToolResult
from tools.schemas import tool_spec


@dataclass(frozen=True)
class Tool:
    """A read-only tool over the documents.

    `subject`: the argument a progress line shows ("Searching for …", "Reading …"), and
    `subject_default` when the call leaves it out (an empty folder path is the root).
    `run` takes the parsed arguments and the scope of the question (None: everything).
    """

    name: str
    description: str
    args: type[BaseModel]
    run: Callable[[Any, Scope | None], Awaitable[ToolResult]]
    example: str
    subject: str
    subject_default: str = ""

    def spec(self) -> dict[str, Any]:
        """The OpenAI `tools` entry the model sees."""
        return tool_spec(self.name, self.description, self.args)

    def subject_of(self, arguments: Mapping[str, Any]) -> str:
        """What a progress line shows for a call with these (possibly invalid) arguments."""
        value = arguments.get(self.subject)
        return str(value) if value not in (None, "") else self.subject_default

    def parse(self, arguments: str | Mapping[str, Any]) -> BaseModel:
        """The validated arguments; every problem is a `ToolError` the model can act on."""
        raw: object = arguments
        if isinstance(arguments, str | bytes):
            text = arguments.strip() if isinstance(arguments, str) else arguments
            try:
                raw = json.loads(text) if text else {}
            except (ValueError, RecursionError):
                raise ToolError(
                    "the arguments are not valid JSON", f"Send a JSON object, e.g. {self.example}."
                ) from None
        if not isinstance(raw, Mapping):
            raise ToolError("the arguments must be a JSON object", self.example)
        try:
            return self.args.model_validate(dict(raw))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors(include_input=False, include_url=False)[:5]
            )
            raise ToolError(f"invalid arguments: {problems}", f"Example: {self.example}") from None

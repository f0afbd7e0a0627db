"""One tool as one object: what the model is told, how its arguments are checked, how it runs.

Everything the rest of the program needs to know about a tool is here: its name and
description, the argument model its JSON Schema comes from, an example for error hints, and
which argument describes a call in a progress line. Adding a tool means adding one of these.
The three tools' argument models are here too, with the JSON Schema generated from them;
their descriptions are short on purpose: the specs go into every request to the model.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from annotated_types import Le
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tools.errors import ToolError
from tools.jail.scope import Scope
from tools.results import ToolResult

PictureMode = Literal["off", "on", "spent"]
"""Whether a read may show its page as a picture: "off", the model was not offered it (a
`picture` sent anyway is answered with a note, the text still read); "on", it may; "spent",
the question has shown as many pages as it may."""


@dataclass(frozen=True)
class Tool:
    """A read-only tool over the documents.

    `subject`: the argument a progress line shows ("Searching for …", "Reading …"), and
    `subject_default` when the call leaves it out (an empty folder path is the root).
    `run` takes the parsed arguments and the scope of the question (None: everything).
    `picture_args`: the wider argument model offered to a model that takes pictures; calls
    are always parsed with it, so a stray argument of it is answered, not refused.
    """

    name: str
    description: str
    args: type[BaseModel]
    run: Callable[[Any, Scope | None], Awaitable[ToolResult]]
    example: str
    subject: str
    subject_default: str = ""
    picture_args: type[BaseModel] | None = None

    def spec(self, *, pictures: bool = False) -> dict[str, Any]:
        """The OpenAI `tools` entry the model sees (`pictures`: one that takes pictures)."""
        args = self.picture_args if pictures and self.picture_args else self.args
        return tool_spec(self.name, self.description, args)

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
            return (self.picture_args or self.args).model_validate(dict(raw))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors(include_input=False, include_url=False)[:5]
            )
            raise ToolError(f"invalid arguments: {problems}", f"Example: {self.example}") from None


class _Args(BaseModel):
    """Forgiving where a model's habit is harmless, strict where the call makes no sense.

    `null` for an optional field means its default, and a number above a field's maximum is
    lowered to it (the schema leaves maxima out to save tokens); anything else invalid is an
    error the model sees.
    """

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _forgive(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fixed = dict(data)
        for name, field in cls.model_fields.items():
            value = fixed.get(name)
            if value is None and name in fixed and not field.is_required():
                del fixed[name]
                continue
            if isinstance(value, int | float) and not isinstance(value, bool):
                for bound in field.metadata:
                    if isinstance(bound, Le) and isinstance(bound.le, int) and value > bound.le:
                        fixed[name] = bound.le
        return fixed


class SearchArgs(_Args):
    query: str = Field(min_length=1, max_length=500, description="Keywords, phrase or glob")
    limit: int = Field(default=10, ge=1, le=50)


class ReadArgs(_Args):
    path: str = Field(min_length=1, max_length=2000)
    offset: int = Field(
        default=1, ge=1, description="First line; a snippet's line goes to its place"
    )
    limit: int = Field(default=400, ge=1, le=5000, description="Max lines")


class PictureReadArgs(ReadArgs):
    picture: bool = Field(
        default=False, description="Also show this page as a picture, for scans, charts, tables"
    )


class ListArgs(_Args):
    path: str = Field(default="", max_length=2000, description="Folder, empty for the root")
    depth: int = Field(default=1, ge=1, le=5)


_NOISE = frozenset({"title", "minLength", "maxLength", "minimum", "maximum"})


def _strip_noise(node: Any) -> Any:
    """Drop keys that cost tokens and tell the model nothing it needs.

    Titles repeat the names; bounds are still enforced by the model classes, and a
    violation comes back as an error result the model can act on.
    """
    if isinstance(node, dict):
        return {k: _strip_noise(v) for k, v in node.items() if k not in _NOISE}
    if isinstance(node, list):
        return [_strip_noise(v) for v in node]
    return node


def tool_spec(name: str, description: str, args: type[BaseModel]) -> dict[str, Any]:
    """An OpenAI `tools` entry for one argument model."""
    schema = _strip_noise(args.model_json_schema())
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema},
    }

"""Argument models of the three tools; the JSON Schema the model sees is generated from them.

Descriptions are short on purpose: the specs go into every request to the model.
"""

from __future__ import annotations

from typing import Any

from annotated_types import Le
from pydantic import BaseModel, ConfigDict, Field, model_validator


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

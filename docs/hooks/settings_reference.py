"""MkDocs hook: the configuration page's settings table, made from `bot.settings.model.Settings`.

The page holds a marked block where the table goes (a line for readers of the Markdown itself);
at each build the block is replaced by the table, rendered from the settings model itself (each
field's variable, default, description and accepted values), so the reference cannot drift from
the code. The tests render it the same way.
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

from annotated_types import Ge, Gt, Le, Lt, MinLen
from pydantic import SecretStr

from bot.settings.model import Settings

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

PAGE = "configuration.md"
MARKER = "<!-- settings-reference: generated from bot.settings.model.Settings at build time -->"
END_MARKER = "<!-- /settings-reference -->"
_KINDS: dict[Any, str] = {
    bool: "`true` or `false`",
    SecretStr: "text; a secret, never logged or shown",
    Path: "a path (relative ones from the working directory)",
}
_NUMBERS: dict[Any, str] = {int: "a whole number", float: "a number"}
_HEADER = ("| variable | meaning | default | accepted values |", "|---|---|---|---|")


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Put the table in place of the marked block on the configuration page; fail without it."""
    if page.file.src_uri != PAGE:
        return markdown
    before, start, rest = markdown.partition(MARKER)
    _placeholder, end, after = rest.partition(END_MARKER)
    if not start or not end or MARKER in after or END_MARKER in after:
        msg = (
            f"{PAGE} must hold one block from {MARKER!r} to {END_MARKER!r}: "
            "the settings table goes there"
        )
        raise ValueError(msg)
    return before + settings_table() + after


def settings_table() -> str:
    """One Markdown table row per setting, in the model's order."""
    prefix = str(Settings.model_config.get("env_prefix") or "")
    rows = [
        f"| `{(prefix + name).upper()}` | {_cell(field.description or '')} "
        f"| {_default(field)} | {_accepted(field)} |"
        for name, field in Settings.model_fields.items()
    ]
    return "\n".join([*_HEADER, *rows])


def _cell(text: str) -> str:
    """Text safe inside a table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _default(field: FieldInfo) -> str:
    value = field.get_default(call_default_factory=True)
    if value is None or value in ("", frozenset()):
        return "empty"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    if isinstance(value, Path) and not value.is_absolute():
        return f"`./{value}`"
    return f"`{value}`"


def _accepted(field: FieldInfo) -> str:
    """What the setting takes, read from its type and its bounds."""
    kind = _without_none(field.annotation)
    if get_origin(kind) is Literal:
        return "one of " + ", ".join(f"`{choice}`" for choice in get_args(kind))
    if get_origin(kind) is frozenset:
        return "Telegram ids: `1,2,3`, `1 2 3` or `[1,2,3]`"
    if kind in _KINDS:
        return _KINDS[kind]
    return _NUMBERS.get(kind, "text") + _bounds(field)


def _without_none(annotation: Any) -> Any:
    """`X | None` as `X`: an empty value means unset for every optional setting."""
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return annotation


def _bounds(field: FieldInfo) -> str:
    words: list[str] = []
    for rule in field.metadata:
        if isinstance(rule, Ge):
            words.append(f"at least {_number(rule.ge)}")
        elif isinstance(rule, Gt):
            words.append(f"above {_number(rule.gt)}")
        elif isinstance(rule, Le):
            words.append(f"at most {_number(rule.le)}")
        elif isinstance(rule, Lt):
            words.append(f"below {_number(rule.lt)}")
        elif isinstance(rule, MinLen) and rule.min_length == 1:
            words.append("not empty")
    return (", " + ", ".join(words)) if words else ""


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else str(value)

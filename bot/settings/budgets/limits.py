"""LIMITS_FILE: token budgets per user and per chat, per day and per month, and model prices.

```toml
timezone = "Europe/Moscow"   # when days and months begin (UTC without it)
currency = "$"               # how prices are shown
limit_admins = false         # admins are limited only when true, or when listed in [users]

[defaults]                   # everyone not listed; a budget left out (or 0) is no budget
user_day = 50_000
user_month = 1_000_000
chat_day = 200_000

[users.123456789]            # one person: these replace the defaults
day = 100_000
month = 0                    # no monthly budget for this person

[chats."-1001234567890"]     # one group
day = 500_000

[prices."gpt-4o-mini"]       # per million tokens; cached defaults to input
input = 0.15
cached = 0.075
output = 0.60
```

A budget counts every prompt token (cached ones too) and every completion token. A file of its
own rather than a table in SCOPES_FILE: it is about money, not documents, is changed by other
people at other times, and a bot with no scopes can still have budgets. It is read once at
start; a problem stops the start (and fails `python -m bot check`) with the line it is on.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.process.setting_files import read_setting_file
from bot.storage.usage import Tokens

Period = Literal["day", "month"]


class LimitsFileError(ValueError):
    """LIMITS_FILE cannot be used; the message says where and why."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)


class Budget(_Strict):
    """One person's or one chat's budgets in tokens; None or 0 is no budget."""

    day: int | None = Field(default=None, ge=0)
    month: int | None = Field(default=None, ge=0)

    def of(self, period: Period) -> int | None:
        """The budget for `period`, None when there is none."""
        tokens = self.day if period == "day" else self.month
        return tokens or None


class Defaults(_Strict):
    """The budgets of everyone (and every chat) the file does not list."""

    user_day: int | None = Field(default=None, ge=0)
    user_month: int | None = Field(default=None, ge=0)
    chat_day: int | None = Field(default=None, ge=0)
    chat_month: int | None = Field(default=None, ge=0)


class Price(_Strict):
    """What a million tokens cost: prompt tokens, prompt tokens the server had cached, and
    completion tokens."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached: float | None = Field(default=None, ge=0)

    @property
    def cached_or_input(self) -> float:
        """The cached price, or the input one when the file gives none."""
        return self.input if self.cached is None else self.cached


class Limits(_Strict):
    """The whole file; an empty one limits nobody and prices nothing."""

    timezone: str = "UTC"
    currency: str = Field(default="$", max_length=8)
    limit_admins: bool = False
    defaults: Defaults = Field(default_factory=Defaults)
    users: dict[int, Budget] = Field(default_factory=dict)
    chats: dict[int, Budget] = Field(default_factory=dict)
    prices: dict[str, Price] = Field(default_factory=dict)
    configured: bool = False
    """A file was given."""

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            msg = f"{value[:60]!r} is not a time zone name such as UTC or Europe/Moscow"
            raise ValueError(msg) from None
        return value

    @property
    def zone(self) -> ZoneInfo:
        """The time zone days and months begin in."""
        return ZoneInfo(self.timezone)

    def holds(self, user_id: int, *, is_admin: bool) -> bool:
        """Whether budgets hold this person at all: everyone but admins, and an admin too when
        `limit_admins` is true or the file lists them in [users]. One rule for their own
        budget and their chat's, listed or default, so an admin is never refused for what
        a chat's members spent unless the file says so."""
        return not is_admin or self.limit_admins or user_id in self.users

    def user_budget(self, user_id: int, period: Period, *, is_admin: bool) -> int | None:
        """A person's budget for `period`: their own entry, else the default; None for an
        admin the file does not hold."""
        if not self.holds(user_id, is_admin=is_admin):
            return None
        own = self.users.get(user_id)
        if own is not None:
            return own.of(period)
        return (self.defaults.user_day if period == "day" else self.defaults.user_month) or None

    def chat_budget(
        self, chat_id: int, period: Period, *, user_id: int, is_admin: bool
    ) -> int | None:
        """The budget for `period` of the chat a question from `user_id` is asked in: the
        chat's own entry, else the default; None for an admin the file does not hold."""
        if not self.holds(user_id, is_admin=is_admin):
            return None
        own = self.chats.get(chat_id)
        if own is not None:
            return own.of(period)
        return (self.defaults.chat_day if period == "day" else self.defaults.chat_month) or None

    def price(self, model: str) -> Price | None:
        """The model's price; None when the file gives none."""
        return self.prices.get(model)


_KEY_PART = re.compile(r"\"[^\"]*\"|'[^']*'|[^.]+")


def parse_limits(text: str) -> Limits:
    """The limits in a TOML text.

    Raises:
        LimitsFileError: the text is not TOML, or a value is not what its key takes; the
            message names the line.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LimitsFileError(f"not valid TOML: {exc}") from None
    try:
        return Limits.model_validate({**data, "configured": True})
    except ValidationError as exc:
        error = exc.errors(include_input=False, include_url=False)[0]
        where = ".".join(str(part) for part in error["loc"] if part != "[key]")
        line = _line_of(text, tuple(str(part) for part in error["loc"]))
        at = f"line {line}: " if line else ""
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "is not a setting of LIMITS_FILE (see the documentation for the keys)"
        elif "[key]" in error["loc"]:
            message = "a key here is a numeric Telegram id (groups are negative)"
        raise LimitsFileError(f"{at}{where}: {message}") from None


def load_limits(path: Path | None) -> Limits:
    """The limits in the file at `path`; none without a path.

    Raises:
        LimitsFileError: the file cannot be read or used; the message names the file.
    """
    if path is None:
        return Limits()
    text = read_setting_file(path, LimitsFileError)
    try:
        return parse_limits(text)
    except LimitsFileError as exc:
        raise LimitsFileError(f"{path}: {exc}") from None


def _line_of(text: str, loc: tuple[str, ...]) -> int | None:
    """The line (1-based) a key is written on, else the line of the nearest table or key
    above it in the file's structure; None when nothing of it is written (a default)."""
    table: tuple[str, ...] = ()
    nearest: int | None = None
    depth = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if line.startswith("[") and line.endswith("]"):
            table = _dotted(line.strip("[]"))
            found = table
        else:
            key, sep, _ = line.partition("=")
            if not sep:
                continue
            found = (*table, *_dotted(key))
            if found == loc:
                return number
        if loc[: len(found)] == found and len(found) > depth:
            nearest, depth = number, len(found)
    return nearest


def _dotted(key: str) -> tuple[str, ...]:
    """A TOML key's parts, quotes taken off (a quoted part may hold dots)."""
    return tuple(part.strip().strip("\"'") for part in _KEY_PART.findall(key.strip()))


MILLION = 1_000_000
"""Prices are per million tokens."""


def cost(limits: Limits, model: str, tokens: Tokens) -> float | None:
    """What `tokens` of `model` cost, in the file's currency; None when it has no price."""
    price = limits.price(model)
    if price is None:
        return None
    fresh = max(tokens.prompt - tokens.cached, 0)
    return (
        fresh * price.input
        + tokens.cached * price.cached_or_input
        + tokens.completion * price.output
    ) / MILLION

"""Who opened the Mini App: Telegram signs what it hands the page (`initData`) with a key made
from the bot's token, so a request carrying it is from that Telegram user, as long as the
signature holds (aiogram checks it, comparing in constant time) and it is fresh: Telegram dates
it when the page opens, and an old one copied out of a page is refused."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from aiogram.utils.web_app import safe_parse_webapp_init_data

MAX_AGE_S = 24 * 3600.0
"""How long after the page opened its `initData` is taken (the page reloads it on reopening)."""

_CLOCK_SKEW_S = 300.0

Problem = Literal["missing", "signature", "stale", "no_user"]


class InitDataError(Exception):
    """The request does not prove who sent it; `problem` says why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Opener:
    """The Telegram user the page was opened by, and the language their app is in."""

    user_id: int
    name: str
    language_code: str | None


def opener(token: str, init_data: str, *, now: float, max_age_s: float = MAX_AGE_S) -> Opener:
    """The user `init_data` was signed for.

    Raises:
        InitDataError: nothing given, a signature that does not hold, too old, or no user.
    """
    if not init_data:
        raise InitDataError("missing")
    try:
        data = safe_parse_webapp_init_data(token, init_data)
    except ValueError:  # a bad signature, or signed fields that do not parse
        raise InitDataError("signature") from None
    age = now - data.auth_date.timestamp()
    if age > max_age_s or age < -_CLOCK_SKEW_S:
        raise InitDataError("stale")
    user = data.user
    if user is None:
        raise InitDataError("no_user")
    name = " ".join(p for p in (user.first_name, user.last_name) if p)
    return Opener(user.id, name, user.language_code)

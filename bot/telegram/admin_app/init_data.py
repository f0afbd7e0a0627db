"""Who opened the Mini App: Telegram signs what it hands the page (`initData`) with a key made
from the bot's token, so a request carrying it is from that Telegram user, as long as the
signature holds (aiogram checks it, comparing in constant time) and it is fresh: Telegram dates
it when the page opens, and an old one copied out of a page is refused.

Anything else a request carries is refused with a reason, never raised as another error: the
header is whatever a client sends, before anyone is known."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qsl

from aiogram.utils.web_app import WebAppInitData, safe_parse_webapp_init_data

from bot.access import user_id_of

MAX_AGE_S = 24 * 3600.0
"""How long after the page opened its `initData` is taken (the page reloads it on reopening)."""

_CLOCK_SKEW_S = 300.0
_HASH = re.compile(r"[0-9a-f]{64}")
"""The shape of Telegram's signature: HMAC-SHA-256 in lower-case hex."""

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


def init_data_of(authorization: str) -> str:
    """The `initData` an `Authorization: tma <initData>` header carries; "" for any other."""
    scheme, _, init_data = authorization.partition(" ")
    return init_data.strip() if scheme.lower() == "tma" else ""


def opener(token: str, init_data: str, *, now: float, max_age_s: float = MAX_AGE_S) -> Opener:
    """The user `init_data` was signed for.

    Raises:
        InitDataError: nothing given, a signature that does not hold (or signed fields that
            make no sense), too old, or no user with a Telegram user id.
    """
    if not init_data:
        raise InitDataError("missing")
    data = _signed(token, init_data)
    age = now - data.auth_date.timestamp()
    if age > max_age_s or age < -_CLOCK_SKEW_S:
        raise InitDataError("stale")
    user = data.user
    user_id = None if user is None else user_id_of(user.id)
    if user is None or user_id is None:
        raise InitDataError("no_user")
    name = " ".join(p for p in (user.first_name, user.last_name) if p)
    return Opener(user_id, name, user.language_code)


def _signed(token: str, init_data: str) -> WebAppInitData:
    """The fields of `init_data` once its signature holds.

    Only one hash in Telegram's shape is compared: the constant-time comparison raises
    TypeError for a non-ASCII one, which a client could send at will.
    """
    try:
        hashes = [v for k, v in parse_qsl(init_data, strict_parsing=True) if k == "hash"]
    except ValueError:
        raise InitDataError("signature") from None
    if len(hashes) != 1 or not _HASH.fullmatch(hashes[0]):
        raise InitDataError("signature")
    try:
        return safe_parse_webapp_init_data(token, init_data)
    except (ValueError, RecursionError):  # a bad signature, or signed fields that do not parse
        raise InitDataError("signature") from None

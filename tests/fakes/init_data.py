"""`initData` as Telegram hands it to a Mini App: the fields, signed with a key made from the
bot's token (the documented scheme), so tests open the admins' page as a real client would."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from urllib.parse import urlencode


def signed_init_data(
    token: str,
    *,
    user_id: int,
    auth_date: float,
    first_name: str = "Anna",
    language_code: str | None = "ru",
) -> str:
    """The query string a Mini App opened by `user_id` at `auth_date` (Unix time) receives."""
    user: dict[str, object] = {"id": user_id, "first_name": first_name, "is_bot": False}
    if language_code is not None:
        user["language_code"] = language_code
    fields = {
        "auth_date": str(int(auth_date)),
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(user, ensure_ascii=False, separators=(",", ":")),
    }
    return signed_fields(token, fields)


def signed_fields(token: str, fields: Mapping[str, str]) -> str:
    """`fields` as a query string with the hash Telegram would sign them with, whatever they
    say: what only the token's holder could send."""
    check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})

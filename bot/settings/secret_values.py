"""What of the settings a log must never show, found from the settings model itself.

Every field typed `SecretStr` is a secret, so one added later is masked without being listed
anywhere (`secret_fields` finds them). Besides each whole value, the pieces a secret holds are
hidden too: the password inside DATABASE_URL, each fallback model's key from FALLBACK_API_KEYS;
and so is a password written into a server's URL (`https://user:password@proxy/v1`), which is
not a secret field but carries one.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import SecretStr

from bot.settings.model import Settings
from bot.storage.urls import database_secrets


def secret_fields(model: type[Settings] = Settings) -> tuple[str, ...]:
    """The names of `model`'s fields typed `SecretStr` (alone, optional or in a union)."""
    return tuple(
        name for name, field in model.model_fields.items() if _holds_secret(field.annotation)
    )


def log_secrets(settings: Settings) -> list[str]:
    """Every secret value of `settings` and every secret piece in it, for the logs to mask."""
    found: list[str] = []
    for name in secret_fields(type(settings)):
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            text = value.get_secret_value().strip()
            found += database_secrets(text) if text else []
    for model in settings.fallbacks:
        if model.api_key is not None:
            found.append(model.api_key.get_secret_value().strip())
        if model.base_url is not None:
            found += _url_passwords(model.base_url)
    for value in settings.model_dump().values():
        if isinstance(value, str):
            found += _url_passwords(value)
    return list(dict.fromkeys(s for s in found if s))


def _url_passwords(text: str) -> list[str]:
    """A URL with a password in it and that password; nothing for any other text."""
    pieces = database_secrets(text)
    return pieces if len(pieces) > 1 else []


def _holds_secret(annotation: Any) -> bool:
    if annotation is SecretStr:
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType, typing.Annotated):
        return any(_holds_secret(arg) for arg in typing.get_args(annotation))
    return False

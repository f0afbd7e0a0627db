"""FALLBACK_MODELS and FALLBACK_API_KEYS read into the models the chain asks after the main one.

A model is named alone (`model-b`, served where the main model is) or with its own server
(`model-c@https://other.example/v1`); its key, if it needs its own, is given in the secret
FALLBACK_API_KEYS as `model-c=sk-...`, so the chain itself is plain text that may be shown and
logged while the keys stay hidden like every other secret. The main key (OPENAI_API_KEY) is
only ever sent to the main server: a model on a server of its own gets its own key or none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import SecretStr

_ENTRY = re.compile(r"^(?P<name>\S+?)@(?P<url>https?://[^\s/]+\S*)$")
"""`name@url` when what follows the last-possible `@` is a URL; model names may hold `@`
themselves (`claude-3@20240620`), which is why only a URL after it splits an entry."""


@dataclass(frozen=True, slots=True)
class FallbackModel:
    """One model of the chain after the main one.

    `base_url`: its own server; None means the main model's (OPENAI_BASE_URL).
    `api_key`: the key sent to it; None sends none (a placeholder the SDK requires).
    """

    name: str
    base_url: str | None = None
    api_key: SecretStr | None = None


def parse_models(text: str) -> tuple[FallbackModel, ...]:
    """The models FALLBACK_MODELS names, in order; raises ValueError saying what is wrong."""
    if not text.strip():
        return ()
    models: list[FallbackModel] = []
    for position, raw in enumerate(text.split(","), start=1):
        entry = raw.strip()
        if not entry:
            msg = f"entry {position} is empty; list models as model-b,model-c@https://host/v1"
            raise ValueError(msg)
        matched = _ENTRY.match(entry)
        if matched is not None:
            models.append(FallbackModel(matched["name"], matched["url"].rstrip("/")))
        elif re.search(r"\s", entry):
            msg = f"{entry!r} holds a space; a model name has none"
            raise ValueError(msg)
        elif "@http" in entry:
            msg = f"{entry!r}: after @ must come a server's URL, http(s)://host[:port]/path"
            raise ValueError(msg)
        else:
            models.append(FallbackModel(entry))
    names = [model.name for model in models]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        msg = (
            f"{', '.join(twice)} named twice; each model of the chain needs its own name "
            "(/status and the metrics tell them apart by it)"
        )
        raise ValueError(msg)
    return tuple(models)


def parse_keys(text: str, names: tuple[str, ...]) -> dict[str, SecretStr]:
    """The keys FALLBACK_API_KEYS gives (`model=key,model=key`), by model name.

    Raises ValueError naming the model, never the key: a key given for a model FALLBACK_MODELS
    does not list is most likely a misspelt name, and would otherwise be silently unused.
    """
    keys: dict[str, SecretStr] = {}
    for position, raw in enumerate(text.split(","), start=1):
        entry = raw.strip()
        if not entry:
            continue
        name, sep, key = entry.partition("=")
        name, key = name.strip(), key.strip()
        if not sep or not name or not key:
            msg = f"entry {position} is not model=key (for example model-c=sk-...)"
            raise ValueError(msg)
        if name not in names:
            msg = f"gives a key for {name!r}, which FALLBACK_MODELS does not list"
            raise ValueError(msg)
        if name in keys:
            msg = f"gives {name!r} two keys"
            raise ValueError(msg)
        keys[name] = SecretStr(key)
    return keys

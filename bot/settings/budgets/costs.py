"""Tokens turned into money by the prices in LIMITS_FILE; without a price, tokens only."""

from __future__ import annotations

from bot.settings.budgets.limits import Limits
from bot.storage.usage import Tokens

MILLION = 1_000_000


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

"""Budgets: how many tokens people and chats may spend on the model, and what that costs.

`limits` reads LIMITS_FILE (budgets per user and chat, per day and month, prices per model)
and turns tokens into money, `periods` tells days and months in its time zone, `gate`
is what the front door asks before and after a question (`Budgets`), `report` sums the usage
store for `/usage`, `chart` draws it as a PNG, and `sink` holds the embeddings' tokens (from
any thread) until the store is there. The counts themselves are kept by
bot.storage.usage. No aiogram here.
"""

from bot.settings.budgets.gate import Budgets, Refused, UsageObserver, Warning
from bot.settings.budgets.limits import Limits, LimitsFileError, load_limits, parse_limits

__all__ = [
    "Budgets",
    "Limits",
    "LimitsFileError",
    "Refused",
    "UsageObserver",
    "Warning",
    "load_limits",
    "parse_limits",
]

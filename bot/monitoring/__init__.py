"""Health and metrics: what an operator's probe and Prometheus ask a running bot.

`Metrics` (`metrics`) keeps the counters in a registry of its own, fed by the agent (as its
observer) and by the Telegram wing; `Health` (`health`) answers whether the bot can take
updates; `gauges` are read at scrape time (the index, questions served and waiting), and so
are `breakers` (which model of the chain is passed over) and `reranks` (how the reranker's
calls ended); `web` serves both over aiohttp. No aiogram here, and nothing that reaches a label
comes from a user.

The names of `web` load their module on first use (`__getattr__`): a bot polling without
METRICS_LISTEN serves nothing, so it does not import aiohttp's server.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from bot.monitoring.health import Health, HealthReport
from bot.monitoring.metrics import Metrics

if TYPE_CHECKING:
    from bot.monitoring.web import (
        HEALTH_PATH,
        METRICS_PATH,
        monitoring_routes,
        monitoring_server,
    )

_SERVED = frozenset({"HEALTH_PATH", "METRICS_PATH", "monitoring_routes", "monitoring_server"})
"""The names that live in `bot.monitoring.web`."""

__all__ = [
    "HEALTH_PATH",
    "METRICS_PATH",
    "Health",
    "HealthReport",
    "Metrics",
    "monitoring_routes",
    "monitoring_server",
]


def __getattr__(name: str) -> Any:
    """Load `bot.monitoring.web` when one of its names is first used."""
    if name not in _SERVED:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(f"{__name__}.web"), name)
    globals()[name] = value
    return value

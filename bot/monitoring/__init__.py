"""Health and metrics: what an operator's probe and Prometheus ask a running bot.

`Metrics` keeps the counters in a registry of its own, fed by the agent (as its observer) and by
the Telegram wing; `Health` answers whether the bot can take updates; `web` serves both over
aiohttp. No aiogram here, and nothing that reaches a label comes from a user.
"""

from bot.monitoring.health import Health, HealthReport
from bot.monitoring.metrics import Metrics
from bot.monitoring.web import HEALTH_PATH, METRICS_PATH, monitoring_routes, monitoring_server

__all__ = [
    "HEALTH_PATH",
    "METRICS_PATH",
    "Health",
    "HealthReport",
    "Metrics",
    "monitoring_routes",
    "monitoring_server",
]

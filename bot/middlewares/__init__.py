"""Middlewares, one job each: access control, per-user rate limit, per-conversation order."""

from bot.middlewares.access import AccessMiddleware
from bot.middlewares.in_flight import InFlight
from bot.middlewares.order import ConversationOrderMiddleware
from bot.middlewares.pastes import PasteJoiner
from bot.middlewares.rate_limit import RateLimitMiddleware, SlidingWindow

__all__ = [
    "AccessMiddleware",
    "ConversationOrderMiddleware",
    "InFlight",
    "PasteJoiner",
    "RateLimitMiddleware",
    "SlidingWindow",
]

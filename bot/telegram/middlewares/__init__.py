"""Middlewares, one job each: pairing, access control, rate limit, per-conversation order."""

from bot.telegram.middlewares.access import AccessMiddleware
from bot.telegram.middlewares.in_flight import InFlight
from bot.telegram.middlewares.order import ConversationOrderMiddleware
from bot.telegram.middlewares.pairing import PairingMiddleware
from bot.telegram.middlewares.pastes import PasteJoiner
from bot.telegram.middlewares.rate_limit import RateLimitMiddleware, SlidingWindow

__all__ = [
    "AccessMiddleware",
    "ConversationOrderMiddleware",
    "InFlight",
    "PairingMiddleware",
    "PasteJoiner",
    "RateLimitMiddleware",
    "SlidingWindow",
]

"""Middlewares, one job each: `pairing` (a code makes its sender the admin), `access` (who may
use the bot, where), `bound_buttons` (a tap counts only on the message its button was
made for), `rate_limit` (a sliding hour of questions per user), `budget` (token
budgets per day and month, LIMITS_FILE), `order` (one update of a conversation at a time),
`pastes` (a long paste Telegram split, joined again), `albums` (the pictures of one album
as one question),
`in_flight` (the handler tasks running, so shutdown lets them finish) and `notices` (whom the
bot told something recently, so refusals do not flood).
"""

from bot.telegram.middlewares.access import AccessMiddleware
from bot.telegram.middlewares.albums import AlbumJoiner
from bot.telegram.middlewares.bound_buttons import BoundButtons
from bot.telegram.middlewares.budget import BudgetMiddleware
from bot.telegram.middlewares.in_flight import InFlight
from bot.telegram.middlewares.order import ConversationOrderMiddleware
from bot.telegram.middlewares.pairing import PairingMiddleware
from bot.telegram.middlewares.pastes import PasteJoiner
from bot.telegram.middlewares.rate_limit import RateLimitMiddleware, SlidingWindow

__all__ = [
    "AccessMiddleware",
    "AlbumJoiner",
    "BoundButtons",
    "BudgetMiddleware",
    "ConversationOrderMiddleware",
    "InFlight",
    "PairingMiddleware",
    "PasteJoiner",
    "RateLimitMiddleware",
    "SlidingWindow",
]

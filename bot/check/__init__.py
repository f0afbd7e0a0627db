"""`python -m bot check`: the third front door. The settings have already passed every rule
`run` applies; this tries the real things, one line each, and exits 0 only when all pass.

Nothing here imports aiogram: the Telegram check lives in the Telegram wing and is opened by
module name, only when it runs, so `check --offline` never pays for aiogram.
"""

from bot.check.run import serve

__all__ = ["serve"]

"""The Telegram part of `python -m bot check`: ask the Bot API who the bot is (getMe).

It lives in the Telegram wing because it needs aiogram; the check front door (`bot.console.check`)
opens it by module name only when the token is set and the network may be used. It answers
with a plain (passed, text) pair, so neither side imports the other.
"""

from __future__ import annotations

from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramNetworkError,
    TelegramUnauthorizedError,
)

from bot.settings.model import Settings
from bot.telegram.app import build_bot

TIMEOUT_S = 15
_SHOWN_CHARS = 120


async def get_me(settings: Settings, *, timeout_s: int = TIMEOUT_S) -> tuple[bool, str]:
    """Whether Telegram (or TELEGRAM_API_BASE) accepts BOT_TOKEN, and the bot's @username or
    the reason it does not; the token never appears in the text."""
    assert settings.bot_token is not None
    token = settings.bot_token.get_secret_value().strip()
    server = settings.telegram_api_base or "api.telegram.org"
    bot = build_bot(settings)
    try:
        me = await bot.get_me(request_timeout=timeout_s)
    except TelegramUnauthorizedError:
        return False, f"{server} refused BOT_TOKEN; copy the token from @BotFather again"
    except TelegramNetworkError as exc:
        return False, f"cannot reach {server}: {_shown(exc.message, token)}"
    except ClientDecodeError as exc:
        reply = str(exc.data) if exc.data is not None else exc.message
        return False, (
            f"{server} did not answer like a Telegram Bot API ({_shown(reply, token)}); "
            "check TELEGRAM_API_BASE"
        )
    except TelegramAPIError as exc:
        return False, f"{server} answered getMe with an error: {_shown(exc.message, token)}"
    finally:
        await bot.session.close()
    return True, f"@{me.username} (getMe at {server})"


def _shown(text: str, token: str) -> str:
    """A server's message on one short line, with the token blanked out."""
    line = " ".join(text.replace(token, "***").split())
    return line if len(line) <= _SHOWN_CHARS else line[: _SHOWN_CHARS - 1] + "…"

"""The Telegram front door: run the bot until SIGTERM or Ctrl-C, long polling or webhook mode.

Every path out closes what was opened: the Bot session and the services, each even if the
other fails, so a failing session close never leaves the stores open.
"""

from __future__ import annotations

import asyncio
import logging

from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramNetworkError,
    TelegramUnauthorizedError,
)

from bot.config import Settings
from bot.services import close_services, open_services
from bot.telegram.app import build_bot, build_dispatcher
from bot.telegram.upload_parts import remove_abandoned
from bot.telegram.webhook import run_webhook

log = logging.getLogger(__name__)


async def serve(settings: Settings) -> int:
    """Run the Telegram bot until SIGTERM or Ctrl-C; returns the exit code."""
    if settings.sandbox_dir.is_dir():  # before the index's first scan meets them
        await asyncio.to_thread(remove_abandoned, settings.sandbox_dir)
    services = await open_services(settings)
    try:
        bot = build_bot(settings)
    except BaseException:
        await close_services(services)
        raise
    try:
        dp = build_dispatcher(settings, services)
        if settings.webhook_url:
            await run_webhook(dp, bot, settings)
        else:
            await bot.delete_webhook(drop_pending_updates=False)
            await dp.start_polling(
                bot, allowed_updates=dp.resolve_used_update_types(), handle_signals=True
            )
    except TelegramUnauthorizedError:
        log.error("Telegram refused BOT_TOKEN; copy the token from @BotFather again")
        return 1
    except TelegramNetworkError as exc:
        log.error("cannot reach the Telegram Bot API: %s", exc)
        return 1
    except TelegramAPIError as exc:  # e.g. setWebhook refusing WEBHOOK_URL
        log.error("Telegram refused to start the bot: %s", exc)
        return 1
    except ClientDecodeError as exc:  # a proxy's error page, or another service on that port
        log.error(
            "the server at %s did not answer like a Telegram Bot API (%s); "
            "check TELEGRAM_API_BASE",
            settings.telegram_api_base or "api.telegram.org",
            _first_line(str(exc.data) if exc.data is not None else exc.message),
        )
        return 1
    finally:
        try:
            await bot.session.close()
        except Exception as exc:  # closing must go on to the stores
            log.warning("closing the Telegram session failed: %s", exc)
        finally:
            await close_services(services)
    log.info("stopped")
    return 0


def _first_line(text: str, limit: int = 120) -> str:
    """The start of a server's reply, enough to recognise it, on one line."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"

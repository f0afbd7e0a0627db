"""`python -m bot`: the entrance. Load the settings, then open one front door.

`run` opens the Telegram wing (`bot.telegram.run`), `chat` the terminal (`bot.terminal`),
`check` the checks (`bot.check`), `pair` prints a pairing code (`bot.access.command`), `backup`
and `restore` copy DATA_DIR out and back (`bot.datadir.backup`, `bot.datadir.restore`). A front
door is imported only once chosen, by its module name: importing aiogram costs seconds that the
terminal chat, `check --offline`, `pair`, `backup` and `restore` never pay. Front doors do not
import this module back.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
from typing import Any

from bot.agent import PromptError
from bot.cli import parse_args
from bot.config import Settings
from bot.data_files import DataDirError
from bot.datadir import DataVersionError
from bot.logs import setup_logging
from bot.settings_loader import SettingsError, load_settings, warn_of_env_file
from bot.storage import StorageError, database_secrets

log = logging.getLogger("bot")

_REQUIRED = {
    "run": ("bot_token", "openai_api_key"),
    "chat": ("openai_api_key",),
    "check": ("openai_api_key",),
    "pair": (),
    "backup": (),
    "restore": (),
}
_WANTED = {"check": ("bot_token",)}  # listed among other problems; alone, check reports it
FRONT_DOORS = {
    "run": "bot.telegram.run",
    "chat": "bot.terminal",
    "check": "bot.check",
    "pair": "bot.access.command",
    "backup": "bot.datadir.backup",
    "restore": "bot.datadir.restore",
}
"""Each module has `async def serve(settings, **options) -> int`, options from the command line."""


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code (2 for bad settings)."""
    command, options = parse_args(argv)
    try:
        settings = load_settings(required=_REQUIRED[command], wanted=_WANTED.get(command, ()))
    except SettingsError as exc:
        print(exc.report(), file=sys.stderr)  # noqa: T201 - the terminal is the audience
        return 2
    return run_command(command, settings, **options)


def run_command(command: str, settings: Settings, **options: Any) -> int:
    """Run `command` (one of `FRONT_DOORS`) with `settings`; returns the exit code."""
    level = settings.log_level
    if command in ("chat", "check") and level == "INFO":
        level = "WARNING"  # keep the terminal conversation (or the checks' lines) readable
    setup_logging(level, secrets=_secrets(settings), log_format=settings.log_format)
    if command not in ("check", "run"):  # check shows them; run once, not in every worker
        warn_of_env_file(settings)
    front_door = importlib.import_module(FRONT_DOORS[command])
    try:
        return int(asyncio.run(front_door.serve(settings, **options)))
    except PromptError as exc:
        log.error("the system prompt cannot be used: %s", exc)
        return 2
    except DataDirError as exc:
        log.error("%s; set DATA_DIR to a folder this user may write", exc)
        return 2
    except DataVersionError as exc:
        log.error("%s", exc)
        return 2
    except StorageError as exc:
        log.error("%s; check DATABASE_URL", exc)
        return 2
    except KeyboardInterrupt:
        return 130


def _secrets(settings: Settings) -> list[str]:
    values = [
        settings.bot_token,
        settings.openai_api_key,
        settings.transcribe_api_key,
        settings.webhook_secret,
    ]
    found = [v.get_secret_value().strip() for v in values if v is not None]
    if settings.database_url is not None:
        found += database_secrets(settings.database_url.get_secret_value())
    return found


if __name__ == "__main__":
    sys.exit(main())

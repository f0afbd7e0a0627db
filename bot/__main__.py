"""`python -m bot`: the entrance. Load the settings, then open one front door.

`run` opens the Telegram wing (`bot.telegram.run`), `chat` the terminal
(`bot.console.terminal.chat`), `check` the checks (`bot.console.check`), `eval` asks a file of
questions and checks the answers (`bot.console.evaluation.run`), `pair` prints a pairing code
(`bot.access.command`), `backup` and `restore` copy DATA_DIR out and back (`bot.datadir.backup`,
`bot.datadir.restore`), `reindex` rebuilds the search index or asks the running bot to
(`bot.documents.reindex`), `sources` lists, syncs and checks the mirrored sources
(`bot.documents.sources.command`). A front door is imported only once chosen, by its module
name: importing aiogram costs seconds that the terminal chat, `eval`, `check --offline`, `pair`,
`backup` and `restore` never pay. Front doors do not import this module back.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import sys
from typing import Any

from bot.agent import PromptError
from bot.datadir import DataVersionError
from bot.documents.sources.config import SourceSecretError, SourcesFileError
from bot.entrance.cli import parse_args
from bot.entrance.loading import SettingsError, load_settings
from bot.process import exit_codes
from bot.process.data_files import DataDirError
from bot.process.logs import setup_logging
from bot.settings.env_file import warn_of_env_file
from bot.settings.model import Settings
from bot.settings.secret_values import log_secrets
from bot.storage import DatabaseUnavailable, StorageError

log = logging.getLogger("bot")

_REQUIRED = {
    "run": ("bot_token", "openai_api_key"),
    "chat": ("openai_api_key",),
    "check": ("openai_api_key",),
    "eval": ("openai_api_key",),
    "pair": (),
    "backup": (),
    "restore": (),
    "reindex": (),
    "sources": (),
}
_WANTED = {"check": ("bot_token",)}  # listed among other problems; alone, check reports it
FRONT_DOORS = {
    "run": "bot.telegram.run",
    "chat": "bot.console.terminal.chat",
    "check": "bot.console.check",
    "eval": "bot.console.evaluation.run",
    "pair": "bot.access.command",
    "backup": "bot.datadir.backup",
    "restore": "bot.datadir.restore",
    "reindex": "bot.documents.reindex",
    "sources": "bot.documents.sources.command",
}
"""Each module has `async def serve(settings, **options) -> int`, options from the command line."""


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code (`bot.process.exit_codes`: 2 for what to fix).

    A reader that stops reading (`check | head -1`) ends the output quietly: Python's own
    recipe for a closed pipe, instead of a BrokenPipeError traceback on the terminal.
    """
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, where a closed pipe can still be caught, not at exit
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # what is still buffered goes nowhere at exit
        return exit_codes.OUTPUT_CLOSED
    return code


def _main(argv: list[str] | None) -> int:
    command, options = parse_args(argv)
    try:
        settings = load_settings(required=_REQUIRED[command], wanted=_WANTED.get(command, ()))
    except SettingsError as exc:
        print(exc.report(), file=sys.stderr)  # noqa: T201 - the terminal is the audience
        return exit_codes.FIX_SETTINGS
    return run_command(command, settings, **options)


def run_command(command: str, settings: Settings, **options: Any) -> int:
    """Run `command` (one of `FRONT_DOORS`) with `settings`; returns the exit code."""
    level = settings.log_level
    if command in ("chat", "check", "eval", "reindex") and level == "INFO":
        level = "WARNING"  # keep the terminal conversation (the checks' lines, the table) readable
    if command == "sources" and level in ("INFO", "WARNING"):
        level = "ERROR"  # a failed pass is said once, by the command's own line
    setup_logging(level, secrets=log_secrets(settings), log_format=settings.log_format)
    if command not in ("check", "run"):  # check shows them; run once, not in every worker
        warn_of_env_file(settings.env_file_notes)
    front_door = importlib.import_module(FRONT_DOORS[command])
    try:
        return int(asyncio.run(front_door.serve(settings, **options)))
    except KeyboardInterrupt:
        return exit_codes.INTERRUPTED
    except Exception as exc:
        for kind, line, code in _REFUSALS:
            if isinstance(exc, kind):
                log.error(line, exc)
                return code
        raise


_REFUSALS: tuple[tuple[type[Exception], str, int], ...] = (
    (PromptError, "the system prompt cannot be used: %s", exit_codes.FIX_SETTINGS),
    (DataDirError, "%s; set DATA_DIR to a folder this user may write", exit_codes.FIX_SETTINGS),
    (DataVersionError, "%s", exit_codes.FIX_SETTINGS),
    (SourceSecretError, "%s", exit_codes.FIX_SETTINGS),
    (SourcesFileError, "%s", exit_codes.FIX_SETTINGS),
    (
        DatabaseUnavailable,
        "%s; check that the server runs at the host and port of DATABASE_URL",
        exit_codes.TRY_AGAIN,
    ),
    (StorageError, "%s; check DATABASE_URL", exit_codes.FIX_SETTINGS),
)
"""What stops a command before it can start, the one line it is logged as, and the exit code
(first match wins: `DatabaseUnavailable` is a `StorageError` that a restart may get past)."""


if __name__ == "__main__":
    sys.exit(main())

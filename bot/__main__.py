"""`python -m bot`: run the Telegram bot, a terminal chat, or a settings check."""

from __future__ import annotations

import sys

from bot.cli import parse_command
from bot.settings_loader import SettingsError, load_settings

_REQUIRED = {
    "run": ("bot_token", "openai_api_key"),
    "chat": ("openai_api_key",),
    "check": (),
}


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code (2 for bad settings)."""
    command = parse_command(argv)
    try:
        settings = load_settings(required=_REQUIRED[command])
    except SettingsError as exc:
        print(exc.report(), file=sys.stderr)  # noqa: T201 - the terminal is the audience
        return 2
    from bot.app import run_command  # noqa: PLC0415 - heavy imports only after settings pass

    return run_command(command, settings)


if __name__ == "__main__":
    sys.exit(main())

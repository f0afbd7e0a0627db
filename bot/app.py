"""The composition root: builds every part of the bot from the settings."""

from __future__ import annotations

import sys

from bot.config import Settings


def run_command(command: str, settings: Settings) -> int:
    """Run `command` with `settings`; returns the exit code."""
    print(  # noqa: T201 - the terminal is the audience
        f"settings are valid (model {settings.model}, documents in {settings.sandbox_dir}); "
        f"the `{command}` command is not available in this version",
        file=sys.stderr,
    )
    return 0 if command == "check" else 1

"""The bot's version, as installed, for `--version` and for admins' `/status`."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "docs-bot"


def bot_version() -> str:
    """The installed version of the package, or "unknown" when run from a bare source tree."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"

"""Fixtures the Telegram wing's tests share beyond the project-wide ones."""

from tests.bot.admin_app_support import open_app

__all__ = ["open_app"]

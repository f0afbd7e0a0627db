"""Load settings and turn every problem into one readable list instead of a traceback."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pydantic import ValidationError

from bot.config import Settings

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

_HOW_TO_FIX = {
    "bot_token": "create a bot with @BotFather and put its token in .env as BOT_TOKEN=...",
    "openai_api_key": "put your model server's key in .env as OPENAI_API_KEY=... "
    "(any string for a local server such as Ollama)",
}


class SettingsError(Exception):
    """Settings are missing or invalid; `problems` holds one line per setting."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems

    def report(self) -> str:
        """A message for the terminal: what is wrong and where to fix it."""
        lines = ["The bot cannot start: its settings need attention.", ""]
        lines += [f"  - {p}" for p in self.problems]
        lines += [
            "",
            "Settings come from the environment or from a .env file in the working directory;",
            "see .env.example and `python -m bot --help` for every setting.",
        ]
        return "\n".join(lines)


def _describe(error: ErrorDetails) -> str:
    field = str(error["loc"][0]) if error["loc"] else ""
    name = field.upper() or "settings"
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "missing":
        message = "is missing"
    hint = _HOW_TO_FIX.get(field)
    return f"{name}: {message}" + (f" ({hint})" if hint and error["type"] == "missing" else "")


def load_settings(required: Iterable[str] = (), **overrides: object) -> Settings:
    """Read settings; `required` names fields that this command cannot run without.

    Raises SettingsError listing every problem at once, so the admin fixes them in one go.
    Values never appear in the messages: a secret typed into the wrong variable stays hidden.
    """
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        raise SettingsError([_describe(e) for e in exc.errors(include_input=False)]) from None
    problems = [
        f"{name.upper()}: is missing ({_HOW_TO_FIX.get(name, 'set it in .env')})"
        for name in required
        if getattr(settings, name) is None
    ]
    if problems:
        raise SettingsError(problems)
    return settings

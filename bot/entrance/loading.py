"""Load settings and turn every problem into one readable list instead of a traceback.

Every rule a command would otherwise meet only once it starts is applied here, so `run`,
`chat` and `check` refuse the same settings with the same list: the values' own rules
(`bot.settings.model`), the secrets a command needs, and a system prompt that can be used.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from bot.agent.prompts import PromptError, choose_system_prompt
from bot.documents.sources.config import SourcesFileError, credential_variables, load_sources
from bot.settings.env_file import dotenv_quiet, env_file_notes
from bot.settings.model import Settings

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

_HOW_TO_FIX = {
    "bot_token": "create a bot with @BotFather and put its token in .env as BOT_TOKEN=...",
    "openai_api_key": "put your model server's key in .env as OPENAI_API_KEY=... "
    "(any string for a local server such as Ollama)",
}
_WHO_NEEDS = {
    "bot_token": "only the Telegram bot needs it; `python -m bot chat` works without it",
}
_PROMPT_FIELDS = frozenset({"system_prompt", "system_prompt_file"})


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
    """`NAME: what is wrong`; a rule over several settings names them in its own words."""
    field = str(error["loc"][0]) if error["loc"] else ""
    message = error["msg"].removeprefix("Value error, ")
    if not field:
        return message
    if error["type"] == "missing":
        message = "is missing"
    hint = _HOW_TO_FIX.get(field)
    return f"{field.upper()}: {message}" + (
        f" ({hint})" if hint and error["type"] == "missing" else ""
    )


def _missing(name: str, *, needed: bool) -> str:
    hint = _HOW_TO_FIX.get(name, "set it in .env")
    if not needed and name in _WHO_NEEDS:
        hint += f"; {_WHO_NEEDS[name]}"
    return f"{name.upper()}: is missing ({hint})"


def _with_defaults(errors: list[ErrorDetails], overrides: dict[str, Any]) -> Settings | None:
    """The settings with each invalid value replaced by its default, so the rules that look
    at the other values still run; None when that does not make them valid."""
    bad = {str(e["loc"][0]) for e in errors if e["loc"]}
    defaults = {
        name: Settings.model_fields[name].get_default(call_default_factory=True)
        for name in bad
        if name in Settings.model_fields
    }
    try:
        with dotenv_quiet():
            return Settings(**{**overrides, **defaults})
    except ValidationError:
        return None


def load_settings(
    required: Iterable[str] = (), *, wanted: Iterable[str] = (), **overrides: Any
) -> Settings:
    """Read settings; `required` names fields that this command cannot run without.

    `wanted` names fields the command runs without but would rather have: they are listed as
    missing only alongside another problem, so the admin sees everything to fix at once.
    Raises SettingsError listing every problem at once, so the admin fixes them in one go.
    Values never appear in the messages: a secret typed into the wrong variable stays hidden.
    """
    problems: list[str] = []
    failed: set[str] = set()
    variables: frozenset[str] = frozenset()
    try:
        with dotenv_quiet():
            settings: Settings | None = Settings(**overrides)
    except ValidationError as exc:
        errors = exc.errors(include_input=False)
        problems = [_describe(e) for e in errors]
        failed = {str(e["loc"][0]) for e in errors if e["loc"]}
        settings = _with_defaults(errors, overrides)
    if settings is not None:
        problems += [
            _missing(name, needed=True)
            for name in required
            if name not in failed and getattr(settings, name) is None
        ]
        if not failed & _PROMPT_FIELDS:
            try:
                choose_system_prompt(settings.system_prompt, settings.system_prompt_file)
            except PromptError as exc:
                problems.append(str(exc))
        if "sources_file" not in failed:
            try:
                variables = credential_variables(load_sources(settings.sources_file))
            except SourcesFileError as exc:
                problems.append(f"SOURCES_FILE: {exc}")
    if problems and settings is not None:
        problems += [
            _missing(name, needed=False)
            for name in wanted
            if name not in failed and getattr(settings, name) is None
        ]
    env_files = overrides.get("_env_file", Settings.model_config.get("env_file"))
    notes = env_file_notes(
        env_files,
        [*Settings.model_fields, *variables],  # a source's password may sit in .env too
        encoding=str(Settings.model_config.get("env_file_encoding") or "utf-8"),
    )
    if settings is None or problems:
        raise SettingsError(problems + notes)  # a misspelt key may be why one is missing
    settings.note_env_file(notes, files=env_files)
    return settings

"""What a `.env` file holds that the settings cannot use: lines python-dotenv cannot parse and
keys that are no setting (`MODLE=gpt-4o`, which silently leaves MODEL at its default).

Only the file's own keys are judged: the process environment holds many variables that are
none of the bot's business. Keys that compose.yaml reads from the same file are known too, and
so are the variables the caller names (a source's `password_env`, read by `env_file_values`).
No value is ever shown, since a malformed line may hold a secret.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from dotenv import dotenv_values
from dotenv.parser import Binding, parse_stream

COMPOSE_KEYS = frozenset(
    {"DOCUMENTS_DIR", "POSTGRES_PASSWORD", "TELEGRAM_API_ID", "TELEGRAM_API_HASH"}
)
"""What compose.yaml takes from `.env` besides the bot's settings."""
COMPOSE_PREFIX = "COMPOSE_"
"""Docker Compose's own variables (COMPOSE_PROFILES, COMPOSE_PROJECT_NAME, ...)."""
_DOTENV_LOGGER = "dotenv.main"

EnvFiles = Path | str | Sequence[Path | str] | None
"""What pydantic-settings takes as `env_file`: none, one file, or several."""


def env_file_notes(env_files: EnvFiles, known: Collection[str], *, encoding: str) -> list[str]:
    """One line per problem in the files that exist: unparsable lines, unknown keys."""
    notes: list[str] = []
    for path in _paths(env_files):
        notes += _notes(path, {name.upper() for name in known}, encoding)
    return notes


def env_file_values(env_files: EnvFiles, *, encoding: str) -> dict[str, str]:
    """Every `KEY=value` of the files that exist, read as pydantic-settings reads them
    (python-dotenv's `dotenv_values`, a later file over an earlier one); a key without a
    value is left out. For variables that are no setting, such as a source's password."""
    values: dict[str, str] = {}
    for path in _paths(env_files):
        try:
            with dotenv_quiet():
                read = dotenv_values(path, encoding=encoding)
        except (OSError, UnicodeDecodeError):  # the settings' loader names the file itself
            continue
        values.update({key: value for key, value in read.items() if value is not None})
    return values


def env_file_paths(env_files: EnvFiles) -> tuple[Path, ...]:
    """`env_file` as a tuple of paths, whether or not they exist."""
    if env_files is None:
        return ()
    if isinstance(env_files, str | Path):
        env_files = [env_files]
    return tuple(Path(p).expanduser() for p in env_files)


def _paths(env_files: EnvFiles) -> list[Path]:
    """The files that exist, found as pydantic-settings finds them (relative to the working
    directory, `~` expanded)."""
    return [path for path in env_file_paths(env_files) if path.is_file()]


def _notes(path: Path, known: set[str], encoding: str) -> list[str]:
    try:
        with path.open(encoding=encoding) as stream:
            bindings = list(parse_stream(stream))
    except (OSError, UnicodeDecodeError):  # pydantic-settings reports an unreadable file itself
        return []
    notes: list[str] = []
    seen: set[str] = set()
    for binding in bindings:
        if binding.error:
            notes.append(
                f"line {_first_line(binding)} of {path} cannot be read (it is not "
                "KEY=value), so it is ignored"
            )
            continue
        if binding.key is None:  # a comment or a blank line
            continue
        key = binding.key.upper()
        if key in known or key in COMPOSE_KEYS or key.startswith(COMPOSE_PREFIX) or key in seen:
            continue
        seen.add(key)
        notes.append(_unknown(binding.key, path, known))
    return notes


def _first_line(binding: Binding) -> int:
    """The line the statement's text starts on (python-dotenv counts the blank lines before
    it as part of it)."""
    text = binding.original.string
    return binding.original.line + text[: len(text) - len(text.lstrip())].count("\n")


def _unknown(key: str, path: Path, known: set[str]) -> str:
    guess = difflib.get_close_matches(key.upper(), sorted(known), n=1)
    if guess:
        return f"unknown setting {key} in {path} — did you mean {guess[0]}?"
    return f"unknown setting {key} in {path}: the bot has no such setting (see .env.example)"


@contextmanager
def dotenv_quiet() -> Iterator[None]:
    """Hold back python-dotenv's own warning about a line it cannot parse.

    It is logged each time the file is read, and settings are read more than once when a
    value is invalid; `env_file_notes` names each such line once instead.
    """
    logger = logging.getLogger(_DOTENV_LOGGER)

    def drop(record: logging.LogRecord) -> bool:
        return False

    logger.addFilter(drop)
    try:
        yield
    finally:
        logger.removeFilter(drop)


def warn_of_env_file(notes: Iterable[str]) -> None:
    """Log, once at start, each thing in the .env file that no setting takes."""
    for note in notes:
        logging.getLogger("bot.settings").warning("%s", note)

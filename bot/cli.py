"""Command-line interface of `python -m bot`: parsing and the help text.

The help lists every setting straight from the Settings class, so it cannot drift from the code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bot.process.version import bot_version
from bot.settings.model import Settings
from tools.jail.documents_folder import shown


def settings_help() -> str:
    """One line per setting: its variable, default and meaning."""
    lines = [
        "settings (environment variables or .env in the working directory; one left empty "
        "takes its default):"
    ]
    for name, field in Settings.model_fields.items():
        text = _written(field.get_default(call_default_factory=True))
        lines.append(f"  {name.upper():<22} {field.description} [default: {text}]")
    return "\n".join(lines)


def _written(default: object) -> str:
    """A default as .env.example writes it: ./sandbox, false, 50 (not Path, False, 50.0)."""
    if default is None:
        return "unset"
    if isinstance(default, Path):
        return shown(default)
    if isinstance(default, frozenset):
        return ",".join(str(i) for i in sorted(default)) or "empty"
    if isinstance(default, bool):
        return str(default).lower()
    if isinstance(default, float) and default.is_integer():
        return str(int(default))
    return str(default)


def program_name(argv0: str) -> str:
    """How the admin started the program, for `--version` and the usage line: `docs-bot` for
    the installed command, `python -m bot` for the module (whose argv[0] is `__main__.py`)."""
    name = Path(argv0).name
    return "python -m bot" if name in ("__main__.py", "") else name


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The parser for `python -m bot [run|chat|check]`; `prog` defaults to this process's."""
    parser = argparse.ArgumentParser(
        prog=prog or program_name(sys.argv[0] if sys.argv else ""),
        description="A Telegram bot that answers questions from a folder of documents.",
        epilog=settings_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {bot_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("run", help="run the Telegram bot (the default)")
    commands.add_parser("chat", help="ask questions in the terminal, without Telegram")
    check = commands.add_parser(
        "check",
        help="apply every settings rule of `run`, then try Telegram (getMe), the model server, "
        "the documents and DATA_DIR, one line each; exit 0 only when all pass",
    )
    check.add_argument(
        "--offline",
        action="store_true",
        help="skip the checks that need the network (Telegram and the model server)",
    )
    commands.add_parser(
        "pair",
        help="print a one-time code that makes whoever sends it to the bot its admin; needs "
        "only DATA_DIR, works while the bot runs",
    )
    backup = commands.add_parser(
        "backup",
        help="copy everything in DATA_DIR but the search index (rebuilt from the documents) "
        "into DEST, consistently even while the bot runs; needs only DATA_DIR",
    )
    backup.add_argument("dest", metavar="DEST", help="a new or empty folder for the backup")
    restore = commands.add_parser(
        "restore",
        help="put a backup made by `backup` into an empty DATA_DIR, never overwriting "
        "anything; needs only DATA_DIR",
    )
    restore.add_argument("src", metavar="SRC", help="the backup's folder")
    return parser


def parse_command(argv: list[str] | None = None) -> str:
    """The command to run; `run` when none is given."""
    return parse_args(argv)[0]


def parse_args(argv: list[str] | None = None) -> tuple[str, dict[str, Any]]:
    """The command to run (`run` when none is given) and its options, such as `offline`."""
    options = vars(build_parser().parse_args(argv))
    return str(options.pop("command") or "run"), options

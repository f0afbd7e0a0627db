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
    """The parser for `python -m bot [COMMAND]`; `prog` defaults to this process's."""
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
        help="apply every settings rule of `run`, then try Telegram (getMe), the model server "
        "(with one round trip with a tool) and each fallback model, the embeddings server, the "
        "reranker, the documents and DATA_DIR, one line each; exit 0 only when all pass",
    )
    check.add_argument(
        "--offline",
        action="store_true",
        help="skip the checks that need the network (Telegram and the model servers)",
    )
    _add_eval(commands)
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
    _add_sources(commands)
    commands.add_parser(
        "reindex",
        help="rebuild the search index from the documents; beside a running bot, ask the bot "
        "to rebuild it and wait; needs only DATA_DIR and the documents",
    )
    return parser


def _add_sources(commands: Any) -> None:
    sources = commands.add_parser(
        "sources",
        help="the sources SOURCES_FILE mirrors into the documents folder: list them with their "
        "last sync, sync them now, or check that each can be listed; needs neither the token "
        "nor the key, works while the bot runs",
    )
    actions = sources.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser(
        "list", help="each source: kind, folder, interval, last sync, counts, last error"
    )
    sync = actions.add_parser(
        "sync",
        help="one pass of each source (or NAME) now; exit 0 when every pass succeeded, else "
        "one line per failed source on standard error",
    )
    sync.add_argument("name", metavar="NAME", nargs="?", help="only this source")
    check = actions.add_parser(
        "check", help="open each source (or NAME) and take a listing, changing nothing"
    )
    check.add_argument("name", metavar="NAME", nargs="?", help="only this source")


_EVAL_EPILOG = """\
the file of questions (TOML), one [[questions]] table each:
  question  = "How many days of paid vacation a year?"
  must      = ["28", 're:calendar\\s+days']   # facts the answer contains; re: is a regex
  must_mode = "all"                           # or "any": one of them is enough
  must_not  = ["30 days"]                     # facts it must not contain (optional)
  cite      = ["hr/vacation_policy.md"]       # files it should read (optional)
plain facts ignore case and runs of spaces; regular expressions ignore case (write them in
'single quotes', where a backslash is just a backslash). sandbox/.eval.example.toml is one.

exit codes: 0 done, 1 a model's accuracy is under --min-accuracy, 2 the file (or --resume's)
cannot be used; the problem is named with its question and field."""


def _add_eval(commands: Any) -> None:
    evaluation = commands.add_parser(
        "eval",
        help="ask the questions of a TOML file through the bot's agent and check the answers: "
        "per question pass or fail and why, per model accuracy, citing, quotes, tokens, cost "
        "and times",
        description="Ask every question of FILE through the same agent as the bot, each in a\n"
        "new conversation, and check each answer for the facts it must and must not contain\n"
        "and the files it should cite. Prints a table; a progress bar on standard error while\n"
        "it runs, on a terminal only.",
        epilog=_EVAL_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    evaluation.add_argument(
        "questions_file", metavar="FILE", help="the questions (TOML); see below"
    )
    evaluation.add_argument(
        "--model",
        dest="models",
        action="append",
        metavar="NAME",
        help="a model to ask, instead of MODEL; repeat to compare several, each run alone",
    )
    evaluation.add_argument(
        "--parallel",
        type=_at_least_one,
        default=2,
        metavar="N",
        help="questions asked at once per model (default: 2)",
    )
    evaluation.add_argument(
        "--json",
        dest="json_file",
        metavar="FILE",
        help="write every result and summary as JSON to FILE (- for standard output, "
        "instead of the table)",
    )
    evaluation.add_argument(
        "--report", dest="report_file", metavar="FILE.md", help="write a Markdown report"
    )
    evaluation.add_argument(
        "--min-accuracy",
        type=_fraction,
        metavar="F",
        help="exit 1 when a model answers fewer than this fraction right (0 to 1, e.g. 0.8)",
    )
    evaluation.add_argument(
        "--price-in",
        type=_price,
        metavar="PRICE",
        help="price of a million prompt tokens, to show the cost",
    )
    evaluation.add_argument(
        "--price-out",
        type=_price,
        metavar="PRICE",
        help="price of a million completion tokens, to show the cost",
    )
    evaluation.add_argument(
        "--resume",
        metavar="STATE.jsonl",
        help="append each result to this file as it comes; a rerun with the same file skips "
        "the questions already answered (Ctrl-C leaves it whole)",
    )


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        msg = f"{text!r} is not a whole number of at least 1"
        raise argparse.ArgumentTypeError(msg)
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        msg = f"{text!r} is not a fraction from 0 to 1 (0.8 means 80 %)"
        raise argparse.ArgumentTypeError(msg)
    return value


def _price(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value < float("inf"):
        msg = f"{text!r} is not a price (a number, 0 or more)"
        raise argparse.ArgumentTypeError(msg)
    return value


def parse_command(argv: list[str] | None = None) -> str:
    """The command to run; `run` when none is given."""
    return parse_args(argv)[0]


def parse_args(argv: list[str] | None = None) -> tuple[str, dict[str, Any]]:
    """The command to run (`run` when none is given) and its options, such as `offline`."""
    options = vars(build_parser().parse_args(argv))
    return str(options.pop("command") or "run"), options

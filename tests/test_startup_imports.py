"""Start-up imports only what the first update needs: document parsers load when a document is
read (in the extraction worker), the model SDK with the first model call, the Markdown parser
with the first answer, the PostgreSQL driver only with DATABASE_URL; `--help` loads none of
them, nor the toolbox.

Checked in a fresh interpreter, so nothing an earlier test imported can hide an import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

STARTUP_MODULES = (
    "bot.__main__",
    "bot.services",
    "bot.telegram.app",
    "bot.telegram.run",
)
"""What `python -m bot` imports before it polls: the entrance, the services, the Telegram wing."""

SHARED_MODULES = ("bot.__main__", "bot.services", "bot.terminal")
"""What the entrance and the terminal chat import: the services without the Telegram wing."""

NOT_AT_STARTUP = (
    "pypdf",
    "pypdfium2",
    "PIL",
    "docx",
    "pptx",
    "python_calamine",
    "striprtf",
    "odf",
    "reportlab",
    "tantivy",
)
"""Document parsers, scanned-page tools and engines the running bot does not load up front."""

AT_FIRST_USE = (
    "openai",
    "httpx2",
    "markdown_it",
    "rapidfuzz",
    "charset_normalizer",
)
"""The model SDK (and its HTTP stack), the Markdown parser, fuzzy name matching and the
encoding guesser: each loads when first needed, not on the way to the first getUpdates."""

POSTGRES = ("asyncpg",)
"""The PostgreSQL driver: only a process with DATABASE_URL needs it."""

NOT_FOR_HELP = (
    *NOT_AT_STARTUP,
    *AT_FIRST_USE,
    *POSTGRES,
    "aiogram",
    "aiohttp",
    "prometheus_client",
)
"""`python -m bot --help` prints the settings; it needs none of the running bot."""


def _loaded(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code` (with DATABASE_URL unset)."""
    code += "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _loaded_after(modules: tuple[str, ...]) -> set[str]:
    return _loaded(
        f"import importlib\nfor name in {list(modules)!r}:\n    importlib.import_module(name)"
    )


def _heavy(loaded: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in loaded if m.split(".")[0] in packages)


def test_the_start_up_path_loads_no_document_parser() -> None:
    loaded = _loaded_after(STARTUP_MODULES)
    assert "aiogram" in loaded  # the check sees the real start-up path
    assert _heavy(loaded, NOT_AT_STARTUP) == []


def test_the_start_up_path_leaves_the_model_sdk_and_parsers_for_first_use() -> None:
    loaded = _loaded_after(STARTUP_MODULES)
    assert "bot.agent.loop" in loaded  # the agent is built; its SDK client is not
    assert _heavy(loaded, AT_FIRST_USE) == []


def test_the_services_and_the_terminal_chat_load_no_postgres_driver_without_a_database() -> None:
    loaded = _loaded_after(SHARED_MODULES)
    assert "bot.services" in loaded
    assert _heavy(loaded, (*POSTGRES, *AT_FIRST_USE)) == []


def test_help_loads_neither_the_toolbox_nor_the_model_sdk() -> None:
    loaded = _loaded(
        "import contextlib, io\n"
        "from bot.__main__ import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out, "
        "contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "assert 'OPENAI_API_KEY' in out.getvalue(), out.getvalue()\n"
    )
    assert "bot.cli" in loaded
    assert _heavy(loaded, NOT_FOR_HELP) == []
    assert "tools.toolbox" not in loaded
    assert "bot.agent.loop" not in loaded

"""Start-up imports only what the first update needs: document parsers load when a document is
read (in the extraction worker), the model SDK with the first model call, the Markdown parser
with the first answer, the PostgreSQL driver only with DATABASE_URL; `--help` loads none of
them, nor the toolbox.

Checked in a fresh interpreter, so nothing an earlier test imported can hide an import; the
last check runs `python -m bot` itself from start to SIGTERM, so what the services and the
Dispatcher import while they are built counts too.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.processes import START_S

STARTUP_MODULES = (
    "bot.__main__",
    "bot.services",
    "bot.telegram.app",
    "bot.telegram.run",
)
"""What `python -m bot` imports before it polls: the entrance, the services, the Telegram wing."""

SHARED_MODULES = ("bot.__main__", "bot.services", "bot.console.terminal.chat")
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
    "numpy",
    "usearch",
    "matplotlib",
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

POSTGRES_STORES = (
    "bot.storage.postgres",
    "bot.storage.backend.postgres",
    "bot.storage.history.postgres",
    "bot.storage.access.postgres",
    "bot.storage.albums.postgres",
    "bot.storage.audit.postgres",
    "bot.storage.claims.postgres",
    "bot.storage.confirmations.postgres",
    "bot.storage.experts.postgres",
    "bot.storage.feedback.postgres",
    "bot.storage.pending_status.postgres",
    "bot.storage.scopes.postgres",
    "bot.storage.rate_limits.postgres",
    "bot.storage.source_links.postgres",
    "bot.storage.unanswered.postgres",
    "bot.storage.usage.postgres",
    "bot.storage.notices.postgres",
    "bot.storage.buttons.postgres",
    "bot.storage.breakers.postgres",
)
"""Our stores on PostgreSQL, which the composition root imports only with DATABASE_URL."""

SERVERS = (
    "aiohttp.web",
    "bot.monitoring.web",
    "bot.telegram.webhook",
    "bot.telegram.exactly_once",
)
"""aiohttp's server and what runs on it: webhook mode and METRICS_LISTEN only."""

NOT_FOR_HELP = (
    *NOT_AT_STARTUP,
    *AT_FIRST_USE,
    *POSTGRES,
    "aiogram",
    "aiohttp",
    "prometheus_client",
)
"""`python -m bot --help` prints the settings; it needs none of the running bot."""


def _loaded(code: str, cwd: Path | None = None) -> set[str]:
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
        cwd=cwd,
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _loaded_after(modules: tuple[str, ...], cwd: Path | None = None) -> set[str]:
    return _loaded(
        f"import importlib\nfor name in {list(modules)!r}:\n    importlib.import_module(name)",
        cwd,
    )


def _heavy(loaded: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in loaded if m.split(".")[0] in packages)


@pytest.fixture(scope="module")
def startup_loaded(tmp_path_factory: pytest.TempPathFactory) -> frozenset[str]:
    """What the start-up path loads: one fresh interpreter serves the three checks on it
    (run away from the checkout, as each test's own working folder is)."""
    return frozenset(_loaded_after(STARTUP_MODULES, tmp_path_factory.mktemp("startup")))


def test_the_start_up_path_loads_no_document_parser(startup_loaded: frozenset[str]) -> None:
    loaded = set(startup_loaded)
    assert "aiogram" in loaded  # the check sees the real start-up path
    assert _heavy(loaded, NOT_AT_STARTUP) == []


def test_the_start_up_path_leaves_the_model_sdk_and_parsers_for_first_use(
    startup_loaded: frozenset[str],
) -> None:
    loaded = set(startup_loaded)
    assert "bot.agent.loop" in loaded  # the agent is built; its SDK client is not
    assert _heavy(loaded, AT_FIRST_USE) == []


def test_the_start_up_path_loads_no_postgres_driver_without_a_database(
    startup_loaded: frozenset[str],
) -> None:
    loaded = set(startup_loaded)
    assert "bot.storage.backend" in loaded
    assert _heavy(loaded, POSTGRES) == []
    assert sorted(loaded.intersection(POSTGRES_STORES)) == []
    assert sorted(loaded.intersection(SERVERS)) == []


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
    assert "bot.entrance.cli" in loaded
    assert _heavy(loaded, NOT_FOR_HELP) == []
    assert "tools.toolbox" not in loaded
    assert "bot.agent.loop" not in loaded


REPO = Path(__file__).resolve().parents[1]

_REPORT_AT_EXIT = """
import atexit, json, runpy, sys
atexit.register(lambda: print("MODULES " + json.dumps(sorted(sys.modules)), flush=True))
sys.argv = ["bot"]
runpy.run_module("bot", run_name="__main__", alter_sys=True)
"""
"""`python -m bot`, printing the modules it holds as it exits."""


async def test_a_polling_bot_on_sqlite_loads_no_driver_no_model_sdk_and_no_server(
    tmp_path: Path, sandbox_dir: Path
) -> None:
    api = FakeBotApi(token=BOT_TOKEN)
    await api.start()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(
        PYTHONPATH=str(REPO),
        BOT_TOKEN=BOT_TOKEN,
        TELEGRAM_API_BASE=api.base_url,
        OPENAI_API_KEY="sk-test",
        OPENAI_BASE_URL="http://127.0.0.1:9/v1",
        SANDBOX_DIR=str(sandbox_dir),
        DATA_DIR=str(tmp_path / "data"),
        ALLOW_ALL="true",
        LOG_LEVEL="WARNING",
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _REPORT_AT_EXIT,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        await api.wait_for(lambda calls: any(c.method == "getUpdates" for c in calls), START_S)
        process.send_signal(signal.SIGTERM)
        output, _ = await asyncio.wait_for(process.communicate(), START_S)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await api.close()
    text = output.decode("utf-8", "replace")
    (report,) = [line for line in text.splitlines() if line.startswith("MODULES ")]
    loaded = set(json.loads(report.removeprefix("MODULES ")))
    assert "bot.telegram.app" in loaded, text  # the Dispatcher was built
    assert _heavy(loaded, (*POSTGRES, *AT_FIRST_USE)) == []
    assert sorted(loaded.intersection(POSTGRES_STORES)) == []
    assert sorted(loaded.intersection(SERVERS)) == [], "polling without METRICS_LISTEN serves none"

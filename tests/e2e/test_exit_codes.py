"""What `python -m bot` exits with when it cannot start, and the one line it says about it.

Exit code 2 means the admin must fix something (systemd's `RestartPreventExitStatus=2` stops
there); 1 means a restart may help. Real processes: the bot alone, and the parent of two real
workers, against a fake Bot API and PostgreSQL servers started by the tests, one of which asks
for a password.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from aiohttp import web

from tests.fakes.accounts import BOT_TOKEN
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.http_server import serving
from tests.fakes.ports import free_port
from tests.fakes.postgres import PostgresServer
from tests.fakes.processes import bot_env, run_python

REFUSED_TOKEN = "42:REFUSED_token_someone_revoked_xyz"
WRONG_PASSWORD = "wrong-Pa55word-typed"


def _with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(
        parts._replace(netloc=f"{parts.username}:{password}@{parts.hostname}:{parts.port}")
    )


@pytest.fixture
def usual(
    tmp_path: Path, sandbox_dir: Path, fake_llm: FakeLLM, bot_api: FakeBotApi
) -> dict[str, str]:
    """Settings that start the bot against the fakes; each test changes what it is about."""
    return {
        "BOT_TOKEN": BOT_TOKEN,
        "OPENAI_API_KEY": "sk-exit-codes-test-key",
        "OPENAI_BASE_URL": fake_llm.base_url,
        "TELEGRAM_API_BASE": bot_api.base_url,
        "SANDBOX_DIR": str(sandbox_dir),
        "DATA_DIR": str(tmp_path / "data"),
        "ALLOW_ALL": "true",
    }


def _workers(count: int, database: str) -> dict[str, str]:
    """Webhook mode with `count` workers on a loopback port, as a deployment runs them."""
    port = free_port()
    return {
        "WORKERS": str(count),
        "WEBHOOK_URL": f"http://127.0.0.1:{port}/hook",
        "WEBHOOK_LISTEN": f"127.0.0.1:{port}",
        "WEBHOOK_SECRET": "exit-codes-secret",
        "TELEGRAM_API_LOCAL": "true",  # lets the webhook URL be plain http
        "DATABASE_URL": database,
    }


async def _run(settings: dict[str, str], cwd: Path) -> tuple[int, str]:
    """`python -m bot` until it exits by itself; its exit code and everything it printed."""
    code, output, _ = await run_python(
        "-m", "bot", env=bot_env(**settings), cwd=cwd, together=True
    )
    return code, output


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if " ERROR " in line]


@pytest.fixture
async def telegram_down() -> AsyncIterator[str]:
    """A Bot API that answers every call with 500, as Telegram's servers do when they fail."""

    async def failing(_: web.Request) -> web.Response:
        body = {"ok": False, "error_code": 500, "description": "Internal Server Error"}
        return web.json_response(body, status=500)

    async with serving(failing) as url:
        yield url


class TestTelegramDown:
    @pytest.mark.parametrize("workers", [1, 2])
    async def test_a_bot_api_answering_5xx_is_left_to_a_restart(
        self,
        workers: int,
        usual: dict[str, str],
        tmp_path: Path,
        telegram_down: str,
        postgres_url: str,
    ) -> None:
        settings = {**usual, "TELEGRAM_API_BASE": telegram_down}
        if workers > 1:
            settings.update(_workers(workers, postgres_url))

        code, output = await _run(settings, tmp_path)

        assert code == 1, output
        (line,) = _errors(output)
        assert "Telegram could not start the bot" in line
        assert "Internal Server Error" in line
        assert "Traceback" not in output


class TestRefusedToken:
    async def test_a_token_telegram_refuses_stops_the_bot_with_2_in_one_line(
        self, usual: dict[str, str], tmp_path: Path
    ) -> None:
        code, output = await _run({**usual, "BOT_TOKEN": REFUSED_TOKEN}, tmp_path)

        assert code == 2, output
        (line,) = _errors(output)
        assert "Telegram refused BOT_TOKEN" in line
        assert "@BotFather" in line
        assert REFUSED_TOKEN.split(":", 1)[1] not in output
        assert "Traceback" not in output

    async def test_the_parent_of_two_workers_says_it_once_and_starts_none(
        self, usual: dict[str, str], tmp_path: Path, postgres_url: str
    ) -> None:
        settings = {**usual, **_workers(2, postgres_url), "BOT_TOKEN": REFUSED_TOKEN}

        code, output = await _run(settings, tmp_path)

        assert code == 2, output
        (line,) = _errors(output)
        assert "Telegram refused BOT_TOKEN" in line
        assert "starting it again" not in output
        assert REFUSED_TOKEN.split(":", 1)[1] not in output
        assert "Traceback" not in output


def _database(workers: int, url: str) -> dict[str, str]:
    """DATABASE_URL, and webhook mode with the parent and its workers when `workers` > 1."""
    return _workers(workers, url) if workers > 1 else {"DATABASE_URL": url}


class TestRefusedDatabase:
    @pytest.mark.parametrize("workers", [1, 2])
    async def test_a_wrong_password_stops_the_bot_with_2_in_one_line(
        self,
        workers: int,
        usual: dict[str, str],
        tmp_path: Path,
        postgres_with_password: PostgresServer,
    ) -> None:
        url = _with_password(postgres_with_password.admin_url, WRONG_PASSWORD)

        code, output = await _run({**usual, **_database(workers, url)}, tmp_path)

        assert code == 2, output
        (line,) = _errors(output)
        assert "does not let the bot in" in line
        assert 'password authentication failed for user "postgres"' in line
        assert "check DATABASE_URL" in line
        assert WRONG_PASSWORD not in output
        assert "starting it again" not in output
        assert "Traceback" not in output


class TestUnreachableDatabase:
    @pytest.mark.parametrize("workers", [1, 2])
    async def test_a_database_that_does_not_answer_is_left_to_a_restart(
        self, workers: int, usual: dict[str, str], tmp_path: Path
    ) -> None:
        url = f"postgresql://bot:{WRONG_PASSWORD}@127.0.0.1:{free_port()}/bot"

        code, output = await _run({**usual, **_database(workers, url)}, tmp_path)

        assert code == 1, output
        (line,) = _errors(output)
        assert "cannot be reached" in line
        assert "check that the server runs" in line
        assert WRONG_PASSWORD not in output
        assert "Traceback" not in output

"""The heartbeat the running bot keeps, and `python -m bot.healthcheck`, which reads it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from bot.healthcheck import health_url, main, problems
from bot.process.data_files import DataFiles
from bot.process.heartbeat import STALE_AFTER_S, Heartbeat, heartbeat_age
from bot.settings.model import Settings

ROOT = Path(__file__).resolve().parent.parent


def _settings(data_dir: Path, **values: object) -> Settings:
    return Settings(data_dir=data_dir, **values)  # type: ignore[arg-type]


async def _health_server(status: int, body: dict[str, str]) -> tuple[web.AppRunner, int]:
    async def healthz(_: web.Request) -> web.Response:
        return web.json_response(body, status=status)

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, runner.addresses[0][1]


@pytest.fixture
async def webhook_port() -> AsyncIterator[int]:
    runner, port = await _health_server(200, {"status": "ok"})
    try:
        yield port
    finally:
        await runner.cleanup()


class TestHeartbeat:
    async def test_beats_while_running_and_is_gone_after_a_clean_stop(
        self, tmp_path: Path
    ) -> None:
        path = tmp_path / "heartbeat"
        async with Heartbeat(path, every_s=0.05):
            assert path.is_file()
            assert f"pid {os.getpid()}" in path.read_text(encoding="utf-8")
            first = path.stat().st_mtime_ns
            for _ in range(100):
                await asyncio.sleep(0.02)
                if path.stat().st_mtime_ns != first:
                    break
            assert path.stat().st_mtime_ns != first
        assert not path.exists()

    async def test_a_folder_that_takes_no_writes_is_logged_once_and_never_raises(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        path = tmp_path / "missing" / "heartbeat"
        async with Heartbeat(path, every_s=0.01):
            await asyncio.sleep(0.1)
        assert len([r for r in caplog.records if "heartbeat" in r.getMessage()]) == 1

    def test_age_is_none_without_the_file(self, tmp_path: Path) -> None:
        assert heartbeat_age(tmp_path / "heartbeat", now=time.time()) is None


class TestProbe:
    def test_a_fresh_heartbeat_is_healthy(self, tmp_path: Path) -> None:
        DataFiles(tmp_path).heartbeat.write_text("now", encoding="utf-8")
        assert problems(_settings(tmp_path), now=time.time()) == []

    def test_no_heartbeat_means_not_running(self, tmp_path: Path) -> None:
        (problem,) = problems(_settings(tmp_path), now=time.time())
        assert "not running" in problem

    def test_a_stale_heartbeat_means_stuck(self, tmp_path: Path) -> None:
        DataFiles(tmp_path).heartbeat.write_text("then", encoding="utf-8")
        (problem,) = problems(_settings(tmp_path), now=time.time() + STALE_AFTER_S + 5)
        assert "stuck" in problem

    async def test_webhook_mode_also_asks_healthz(self, tmp_path: Path, webhook_port: int) -> None:
        DataFiles(tmp_path).heartbeat.write_text("now", encoding="utf-8")
        settings = _settings(
            tmp_path,
            webhook_url="https://bot.test/telegram",
            webhook_listen=f"0.0.0.0:{webhook_port}",
        )
        assert await asyncio.to_thread(problems, settings, now=time.time()) == []

    async def test_an_unhealthy_healthz_is_reported_with_its_reason(self, tmp_path: Path) -> None:
        DataFiles(tmp_path).heartbeat.write_text("now", encoding="utf-8")
        runner, port = await _health_server(
            503, {"status": "unavailable", "reason": "the search index has stopped"}
        )
        try:
            settings = _settings(
                tmp_path,
                webhook_url="https://bot.test/telegram",
                webhook_listen=f"127.0.0.1:{port}",
            )
            found = await asyncio.to_thread(problems, settings, now=time.time())
        finally:
            await runner.cleanup()
        assert found == ["GET /healthz answered 503: the search index has stopped"]

    async def test_a_silent_webhook_port_is_reported(self, tmp_path: Path) -> None:
        DataFiles(tmp_path).heartbeat.write_text("now", encoding="utf-8")
        runner, port = await _health_server(200, {})
        await runner.cleanup()  # the port is closed now
        settings = _settings(
            tmp_path, webhook_url="https://bot.test/telegram", webhook_listen=f"[::]:{port}"
        )
        (problem,) = await asyncio.to_thread(problems, settings, now=time.time(), timeout_s=2)
        assert problem.startswith(f"nothing answers GET http://[::1]:{port}/healthz")

    async def test_polling_mode_asks_healthz_on_metrics_listen(
        self, tmp_path: Path, webhook_port: int
    ) -> None:
        DataFiles(tmp_path).heartbeat.write_text("now", encoding="utf-8")
        settings = _settings(tmp_path, metrics_listen=f"127.0.0.1:{webhook_port}")
        assert await asyncio.to_thread(problems, settings, now=time.time()) == []

    @pytest.mark.parametrize(
        ("values", "url"),
        [
            ({"webhook_listen": "0.0.0.0:8080"}, "http://127.0.0.1:8080/healthz"),
            ({"webhook_listen": "[::]:8443"}, "http://[::1]:8443/healthz"),
            ({"webhook_listen": "10.1.2.3:80"}, "http://10.1.2.3:80/healthz"),
            ({"metrics_listen": "0.0.0.0:9108"}, "http://127.0.0.1:8080/healthz"),
        ],
    )
    def test_webhook_mode_asks_where_its_server_listens(
        self, values: dict[str, str], url: str
    ) -> None:
        settings = _settings(Path("data"), webhook_url="https://bot.test/hook", **values)
        assert health_url(settings) == url

    def test_polling_mode_without_metrics_listen_asks_no_server(self) -> None:
        assert health_url(_settings(Path("data"))) is None
        with_metrics = _settings(Path("data"), metrics_listen="[::1]:9108")
        assert health_url(with_metrics) == "http://[::1]:9108/healthz"


class TestCommand:
    def test_main_reads_data_dir_from_the_environment(
        self,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        monkeypatch.setenv("DATA_DIR", str(tmp_path))
        assert main() == 1
        assert capsys.readouterr().out.startswith("unhealthy: no heartbeat")
        DataFiles(tmp_path).heartbeat.write_text("now", encoding="utf-8")
        assert main() == 0
        assert capsys.readouterr().out == "healthy\n"

    def test_runs_as_a_module_without_a_token_or_key(self, tmp_path: Path) -> None:
        data = tmp_path / "data"  # beside ./sandbox, the documents folder by default
        data.mkdir()
        DataFiles(data).heartbeat.write_text("now", encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "BOT_"))}
        env.update(PYTHONPATH=str(ROOT), DATA_DIR=str(data))
        done = subprocess.run(
            [sys.executable, "-m", "bot.healthcheck"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert (done.returncode, done.stdout) == (0, "healthy\n"), done.stderr

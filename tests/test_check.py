"""`python -m bot check`: the rules `run` applies, then the real Telegram, model, folders."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from bot.__main__ import main
from bot.console.check import serve
from bot.console.check.documents import check_documents, describe_reasons
from bot.console.check.model_server import check_model_server
from bot.entrance.cli import build_parser
from bot.entrance.loading import load_settings
from bot.settings.model import Settings
from tests.fakes import tool_round
from tests.fakes.accounts import BOT_TOKEN, BOT_USERNAME
from tests.fakes.bot_api_http import FakeBotApi
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.http_server import serving
from tests.fakes.ports import free_port
from tests.fakes.processes import run_python

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "123456:AAF-secret_token_value_abcdef"
KEY = "sk-check-secret-key-123"


def _env_file(folder: Path, **values: str) -> None:
    """A .env in `folder`: the example's lines, then `values` in place of its own."""
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if line.partition("=")[0].lstrip("# ") not in values]
    kept += [f"{name}={value}" for name, value in values.items()]
    (folder / ".env").write_text("\n".join(kept) + "\n", encoding="utf-8")


class TestSettingsRules:
    """`check` refuses, with exit code 2 and one list, whatever `run` would refuse."""

    def test_an_unfilled_env_example_names_both_secrets_and_nothing_else(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        shutil.copy(ROOT / ".env.example", tmp_path / ".env")
        monkeypatch.chdir(tmp_path)
        assert main(["check"]) == 2
        report = capsys.readouterr().err
        problems = [line.removeprefix("  - ") for line in report.splitlines() if "  - " in line]
        assert [p.split(":")[0] for p in problems] == ["OPENAI_API_KEY", "BOT_TOKEN"]
        assert "`python -m bot chat` works without it" in report

    def test_example_values_are_refused_without_showing_them(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        example_token = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"  # Telegram's documentation
        _env_file(
            tmp_path,
            BOT_TOKEN=example_token,
            OPENAI_API_KEY="sk-...",
            WEBHOOK_URL="https://bot.example.com/telegram",
        )
        monkeypatch.chdir(tmp_path)
        assert main(["check"]) == 2
        report = capsys.readouterr().err
        for name in ("BOT_TOKEN", "OPENAI_API_KEY", "WEBHOOK_URL"):
            assert f"{name}: is still the example value" in report
        assert example_token not in report
        assert "sk-..." not in report

    @pytest.mark.parametrize("key", ["<your key>", "your-api-key", "sk-xxxxxxxx", "changeme"])
    def test_stand_ins_for_a_key_are_refused(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], key: str
    ) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        assert main(["chat"]) == 2
        assert "OPENAI_API_KEY: is still the example value" in capsys.readouterr().err

    @pytest.mark.parametrize("key", ["ollama", "EMPTY", "sk-no-key-required", "lm-studio"])
    def test_keys_local_servers_accept_are_kept(
        self, monkeypatch: pytest.MonkeyPatch, key: str
    ) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        settings = load_settings(required=("openai_api_key",))
        assert settings.openai_api_key is not None

    @pytest.mark.parametrize("command", ["check", "run", "chat"])
    def test_a_missing_prompt_file_stops_every_command_before_it_starts(
        self,
        monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
        command: str,
    ) -> None:
        monkeypatch.setenv("SYSTEM_PROMPT_FILE", str(tmp_path / "prompt.txt"))
        monkeypatch.setenv("MAX_ROUNDS", "0")
        assert main([command]) == 2
        report = capsys.readouterr().err
        assert f"SYSTEM_PROMPT_FILE: {tmp_path / 'prompt.txt'} does not exist" in report
        assert "MAX_ROUNDS:" in report  # listed together, not one per attempt
        assert "OPENAI_API_KEY: is missing" in report

    def test_a_prompt_file_that_is_not_utf8_is_refused(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        (tmp_path / "prompt.txt").write_bytes(b"\xff\xfe\xfa")
        monkeypatch.setenv("SYSTEM_PROMPT_FILE", str(tmp_path / "prompt.txt"))
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        assert main(["check"]) == 2
        assert "SYSTEM_PROMPT_FILE:" in capsys.readouterr().err

    @pytest.mark.parametrize(
        ("url", "reason"),
        [
            ("http://bot.example.org/tg", "https://"),
            ("https://bot.example.org:8080/tg", "port 443, 80, 88 or 8443"),
        ],
    )
    def test_a_webhook_url_telegram_refuses_is_refused(
        self,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
        url: str,
        reason: str,
    ) -> None:
        monkeypatch.setenv("WEBHOOK_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("BOT_TOKEN", TOKEN)
        for command in ("check", "run"):
            assert main([command]) == 2
            report = capsys.readouterr().err
            assert "WEBHOOK_URL:" in report
            assert reason in report

    def test_a_local_bot_api_server_may_take_plain_http_webhooks(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("TELEGRAM_API_LOCAL", "true")
        monkeypatch.setenv("WEBHOOK_URL", "http://bot:8080/tg")
        assert load_settings().webhook_url == "http://bot:8080/tg"


@pytest.fixture
async def fake_llm() -> AsyncIterator[FakeLLM]:
    """The fake model server, playing a model that calls the tool `check` offers it."""
    async with FakeLLM() as server:
        server.responder = tool_round.calls_tools
        yield server


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "hr").mkdir(parents=True)
    (folder / "hr" / "vacation.md").write_text("# Vacation\n\n28 days a year.\n", encoding="utf-8")
    return folder


def _settings(
    tmp_path: Path, docs: Path, fake_llm: FakeLLM, bot_api: FakeBotApi, **values: Any
) -> Settings:
    defaults: dict[str, Any] = {
        "bot_token": BOT_TOKEN,
        "telegram_api_base": bot_api.base_url,
        "openai_api_key": KEY,
        "openai_base_url": fake_llm.base_url,
        "sandbox_dir": docs,
        "data_dir": tmp_path / "data",
        "_env_file": None,
    }
    return load_settings(**{**defaults, **values})


async def _check(
    settings: Settings, capsys: pytest.CaptureFixture[str], *, offline: bool = False
) -> tuple[int, dict[str, str]]:
    """The exit code and each line by its subject, after checking no secret was printed."""
    return await check_lines(settings, capsys, offline=offline, secrets=(KEY, BOT_TOKEN))


async def check_lines(
    settings: Settings,
    capsys: pytest.CaptureFixture[str],
    *,
    offline: bool,
    secrets: tuple[str, ...],
    fallbacks: tuple[str, ...] = (),
) -> tuple[int, dict[str, str]]:
    """The exit code and each line by its subject (a line per fallback model among them),
    after checking that none of `secrets` was printed."""
    code = await serve(settings, offline=offline)
    out = capsys.readouterr().out
    for secret in secrets:
        assert secret not in out
    lines = {line[2:].split(": ", 1)[0]: line for line in out.splitlines()}
    assert list(lines) == [
        "settings",
        "telegram",
        "model server",
        "tool calls",
        *(f"fallback {name}" for name in fallbacks),
        "documents",
        "data folder",
        "database",
    ]
    return code, lines


class TestRealThings:
    async def test_all_pass(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        settings = _settings(tmp_path, docs, fake_llm, bot_api)
        code, lines = await _check(settings, capsys)
        assert code == 0, lines
        assert lines["settings"].startswith("✓ settings: model gpt-4.1-mini")
        assert lines["telegram"].startswith(f"✓ telegram: @{BOT_USERNAME} (getMe")
        assert lines["model server"] == (
            f"✓ model server: gpt-4.1-mini is offered at {fake_llm.base_url}/"
        )
        assert lines["documents"] == f"✓ documents: 1 in {docs}, all readable"
        assert lines["data folder"].startswith(f"✓ data folder: {tmp_path / 'data'} can be")
        assert [c.method for c in bot_api.calls] == ["getMe"]
        assert fake_llm.model_listings == 1
        assert not (tmp_path / "data").exists()  # the check leaves nothing behind

    async def test_a_model_the_server_does_not_offer_names_those_it_does(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        fake_llm.models = [f"model-{n}" for n in range(12)]
        settings = _settings(tmp_path, docs, fake_llm, bot_api, model="qwen2.5:7b")
        code, lines = await _check(settings, capsys)
        assert code == 1
        assert lines["model server"].startswith("✗ model server: MODEL qwen2.5:7b is not offered")
        assert "it offers model-0, model-1" in lines["model server"]
        assert "model-9 and 2 more" in lines["model server"]
        assert "model-10" not in lines["model server"]

    async def test_a_server_without_a_list_gets_a_one_token_request(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        fake_llm.models = None
        fake_llm.reply_text("ok")
        code, lines = await _check(_settings(tmp_path, docs, fake_llm, bot_api), capsys)
        assert code == 0, lines
        assert "gpt-4.1-mini answered a one-token request" in lines["model server"]
        assert "keeps no list of models" in lines["model server"]
        assert fake_llm.requests[0]["max_tokens"] == 1

    async def test_a_refused_key_is_named_without_its_value(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        fake_llm.models = None
        fake_llm.reply_error(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}})
        code, lines = await _check(_settings(tmp_path, docs, fake_llm, bot_api), capsys)
        assert code == 1
        assert lines["model server"].startswith(
            "✗ model server: the key in OPENAI_API_KEY was refused (HTTP 401"
        )

    async def test_a_server_that_is_down_is_named_with_its_url(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        url = f"http://127.0.0.1:{free_port()}/v1"
        settings = _settings(tmp_path, docs, fake_llm, bot_api, openai_base_url=url)
        code, lines = await _check(settings, capsys)
        assert code == 1
        assert lines["model server"].startswith(f"✗ model server: cannot reach {url}/")
        assert "refused" in lines["model server"]

    async def test_a_refused_token(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        api = FakeBotApi(token="7:another_token_entirely_abcdefgh")
        await api.start()
        try:
            code, lines = await _check(_settings(tmp_path, docs, fake_llm, api), capsys)
        finally:
            await api.close()
        assert code == 1
        assert lines["telegram"] == (
            f"✗ telegram: {api.base_url} refused BOT_TOKEN; copy the token from @BotFather again"
        )
        assert lines["model server"].startswith("✓")  # the other checks still ran

    async def test_a_server_that_is_not_a_bot_api(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        base = fake_llm.base_url.removesuffix("/v1")
        settings = _settings(tmp_path, docs, fake_llm, bot_api, telegram_api_base=base)
        code, lines = await _check(settings, capsys)
        assert code == 1
        assert "did not answer like a Telegram Bot API" in lines["telegram"]

    async def test_no_token_fails_the_telegram_line_only(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        settings = _settings(tmp_path, docs, fake_llm, bot_api, bot_token=None)
        code, lines = await _check(settings, capsys)
        assert code == 1
        assert lines["telegram"] == (
            "✗ telegram: BOT_TOKEN is not set (needed for the Telegram bot; `chat` works "
            "without it)"
        )
        assert all(lines[s].startswith("✓") for s in ("model server", "documents"))
        assert bot_api.calls == []

    async def test_unreadable_documents_are_counted_with_their_reasons(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        (docs / "scan.pdf").write_bytes(b"not a PDF at all")
        (docs / "hr" / "photo.png").write_bytes(b"\x89PNG\r\n")
        code, lines = await _check(_settings(tmp_path, docs, fake_llm, bot_api), capsys)
        assert code == 0, lines
        assert lines["documents"] == (
            f"✓ documents: 3 in {docs}, 2 unreadable (1 damaged PDF, 1 damaged image)"
        )

    async def test_a_folder_with_nothing_readable_fails(
        self,
        tmp_path: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        docs = tmp_path / "scans"
        docs.mkdir()
        (docs / "scan.pdf").write_bytes(b"not a PDF at all")
        code, lines = await _check(_settings(tmp_path, docs, fake_llm, bot_api), capsys)
        assert code == 1
        assert lines["documents"].endswith("the bot has no text to answer from")

    async def test_a_missing_documents_folder_fails(
        self,
        tmp_path: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        missing = tmp_path / "nowhere"
        code, lines = await _check(_settings(tmp_path, missing, fake_llm, bot_api), capsys)
        assert code == 1
        assert lines["documents"] == (
            f"✗ documents: the documents folder {missing} does not exist; create it or set "
            "SANDBOX_DIR"
        )

    async def test_a_file_where_the_data_folder_should_be(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        (tmp_path / "data").write_text("in the way", encoding="utf-8")
        code, lines = await _check(_settings(tmp_path, docs, fake_llm, bot_api), capsys)
        assert code == 1
        assert lines["data folder"] == (
            f"✗ data folder: {tmp_path / 'data'} is a file, not a folder; move it or set DATA_DIR"
        )

    async def test_a_data_folder_below_a_file_cannot_be_created(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        (tmp_path / "blocker").write_text("in the way", encoding="utf-8")
        data = tmp_path / "blocker" / "data"
        settings = _settings(tmp_path, docs, fake_llm, bot_api, data_dir=data)
        code, lines = await _check(settings, capsys)
        assert code == 1
        assert lines["data folder"].startswith(f"✗ data folder: {data} cannot be created (")

    async def test_offline_makes_no_network_call(
        self,
        tmp_path: Path,
        docs: Path,
        fake_llm: FakeLLM,
        bot_api: FakeBotApi,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        settings = _settings(tmp_path, docs, fake_llm, bot_api)
        code, lines = await _check(settings, capsys, offline=True)
        assert code == 0, lines
        assert lines["telegram"] == "· telegram: skipped (--offline)"
        assert lines["model server"] == "· model server: skipped (--offline)"
        assert lines["tool calls"] == "· tool calls: skipped (--offline)"
        assert bot_api.calls == []
        assert fake_llm.model_listings == 0
        assert fake_llm.requests == []


class TestDocumentsCheck:
    def test_a_large_folder_is_read_for_a_bounded_time(self, docs: Path, tmp_path: Path) -> None:
        (docs / "more.txt").write_text("more", encoding="utf-8")
        outcome = check_documents(docs, tmp_path / "data", max_file_mb=50, budget_s=0)
        assert outcome.ok is True
        assert (
            outcome.text == f"1 read in {docs} within 0 s (a sample; there are more), all readable"
        )

    def test_reasons_are_grouped_commonest_first(self) -> None:
        reasons = Counter(
            {
                "the PDF has no text layer (scanned images only)": 2,
                "the PDF is password-protected": 1,
                "the file cannot be opened (Too many levels of symbolic links)": 1,
            }
        )
        assert describe_reasons(reasons) == (
            "2 scanned PDFs without a text layer, 1 encrypted PDF, "
            "1 file: the file cannot be opened (Too many levels of symbolic links)"
        )


class TestEntrance:
    """`python -m bot check` as a process: its lines, its exit code, and no aiogram offline."""

    def _env(self, tmp_path: Path, docs: Path, fake_llm: FakeLLM) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "BOT_"))}
        env.update(
            PYTHONPATH=str(ROOT),
            BOT_TOKEN=BOT_TOKEN,
            OPENAI_API_KEY=KEY,
            OPENAI_BASE_URL=fake_llm.base_url,
            SANDBOX_DIR=str(docs),
            DATA_DIR=str(tmp_path / "data"),
        )
        return env

    async def _run(self, env: dict[str, str], cwd: Path, *args: str) -> tuple[int, str, str]:
        return await run_python(*args, env=env, cwd=cwd, within_s=180)

    async def test_every_check_passes(
        self, tmp_path: Path, docs: Path, fake_llm: FakeLLM, bot_api: FakeBotApi
    ) -> None:
        env = self._env(tmp_path, docs, fake_llm)
        env["TELEGRAM_API_BASE"] = bot_api.base_url
        code, out, err = await self._run(env, tmp_path, "-m", "bot", "check")
        assert code == 0, out + err
        assert [line[:1] for line in out.splitlines()] == ["✓"] * 6 + ["·"]  # no database
        assert KEY not in out + err
        assert BOT_TOKEN not in out + err

    async def test_offline_never_imports_aiogram(
        self, tmp_path: Path, docs: Path, fake_llm: FakeLLM
    ) -> None:
        script = (
            "import sys\n"
            "from bot.__main__ import main\n"
            "code = main(['check', '--offline'])\n"
            "assert 'aiogram' not in sys.modules, 'aiogram was imported'\n"
            "sys.exit(code)\n"
        )
        env = self._env(tmp_path, docs, fake_llm)
        code, out, err = await self._run(env, tmp_path, "-c", script)
        assert code == 0, out + err
        assert "skipped (--offline)" in out
        assert fake_llm.model_listings == 0

    def test_help_describes_check(self) -> None:
        help_text = build_parser().format_help()
        assert "getMe" in help_text
        assert "model server" in help_text


class TestModelServerCheck:
    """The replies the fake model server does not give: a refused listing, a silent server."""

    @asynccontextmanager
    async def _server(self, handler: Any) -> AsyncIterator[str]:
        """A model server whose list of models `handler` answers; yields its base URL."""
        async with serving(handler, path="/v1/models", method="GET") as url:
            yield f"{url}/v1"

    async def test_a_key_refused_by_the_listing(self) -> None:
        async def refuse(_: web.Request) -> web.Response:
            body = {"error": {"message": f"Incorrect API key provided: {KEY}"}}
            return web.json_response(body, status=401)

        async with self._server(refuse) as url:
            settings = load_settings(openai_api_key=KEY, openai_base_url=url, _env_file=None)
            outcome = await check_model_server(settings)
        assert outcome.ok is False
        assert outcome.text.startswith("the key in OPENAI_API_KEY was refused (HTTP 401")
        assert KEY not in outcome.text

    async def test_a_server_that_does_not_answer_in_time(self) -> None:
        async def hang(_: web.Request) -> web.Response:
            await asyncio.sleep(30)
            return web.json_response({})

        async with self._server(hang) as url:
            settings = load_settings(openai_api_key=KEY, openai_base_url=url, _env_file=None)
            outcome = await check_model_server(settings, timeout_s=0.5)
        assert outcome.ok is False
        assert outcome.text == f"{url}/ did not answer within 0.5 s"

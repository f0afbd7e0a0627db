"""Claiming a fresh bot: the pairing code from the log or `python -m bot pair`, through Telegram.

Every scenario runs through the real Dispatcher on the fake Bot API; time moves on a clock the
test holds, never by sleeping.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiogram.methods import SetMyCommands
from aiogram.types import BotCommandScopeChat

from bot.__main__ import main
from bot.access import AccessPolicy
from bot.storage.access import LOCKOUT_S
from bot.storage.access.codes import LIFETIME_S
from tests.bot.access_support import code_from_log, texts_to, tuning
from tests.fakes.accounts import BOT_TOKEN, STRANGER_ID, USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.harness import Harness

ROOT = Path(__file__).resolve().parents[2]
_PAIR_AND_TELL_WHETHER_AIOGRAM_LOADED = (
    "import sys; from bot.__main__ import main; status = main(['pair']); "
    "print('aiogram loaded:', 'aiogram' in sys.modules); sys.exit(status)"
)
OTHER_ID = 4004
NO_ADMINS: dict[str, Any] = {"admin_ids": frozenset()}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def unclaimed(
    make_dispatcher: Any, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> AsyncIterator[Harness]:
    """A bot with no admin in ADMIN_IDS and none paired: it logs a code at start."""
    caplog.set_level(logging.DEBUG)
    async with make_dispatcher(tuning=tuning(clock), **NO_ADMINS) as harness:
        yield harness


def _access(harness: Harness) -> AccessPolicy:
    access = harness.dp.workflow_data["access"]
    assert isinstance(access, AccessPolicy)
    return access


async def _start(harness: Harness, code: str, user_id: int = STRANGER_ID) -> str:
    """Send `/start CODE` privately; return what the bot answered."""
    await harness.feed(harness.updates.command(f"/start {code}", user_id=user_id))
    return texts_to(harness, user_id)[-1]


class TestTheCodeFromTheLog:
    async def test_the_start_up_line_says_what_to_do(
        self, unclaimed: Harness, caplog: pytest.LogCaptureFixture
    ) -> None:
        records = caplog.get_records("setup")
        (line,) = [r for r in records if "become its admin" in r.getMessage()]
        assert line.levelno == logging.WARNING
        code = code_from_log(caplog)
        assert f"https://t.me/docs_test_bot?start={code}" in line.getMessage()
        assert "python -m bot pair" in line.getMessage()

    async def test_it_makes_the_sender_an_admin_once(
        self, unclaimed: Harness, caplog: pytest.LogCaptureFixture
    ) -> None:
        code = code_from_log(caplog)
        assert "Теперь вы администратор" in await _start(unclaimed, code)
        assert not unclaimed.llm.requests
        menus = list(unclaimed.session.called("setMyCommands"))
        assert menus and all(isinstance(m, SetMyCommands) for m in menus)
        assert {m.scope.chat_id for m in menus if isinstance(m.scope, BotCommandScopeChat)} == {
            STRANGER_ID
        }
        assert {"allow", "deny", "users"} <= {c.command for c in menus[0].commands}

        assert "не подходит" in await _start(unclaimed, code, OTHER_ID)
        assert not _access(unclaimed).may_use(OTHER_ID)
        await unclaimed.feed(unclaimed.updates.command("/users", user_id=STRANGER_ID))
        assert "Кто может пользоваться ботом" in texts_to(unclaimed, STRANGER_ID)[-1]

    async def test_the_code_alone_works_too_in_any_case(
        self, unclaimed: Harness, caplog: pytest.LogCaptureFixture
    ) -> None:
        code = code_from_log(caplog).lower().replace("-", " ")
        await unclaimed.feed(unclaimed.updates.message(code, user_id=STRANGER_ID))
        assert "Теперь вы администратор" in texts_to(unclaimed, STRANGER_ID)[-1]
        assert _access(unclaimed).is_admin(STRANGER_ID)

    async def test_a_wrong_code_is_refused_and_counted(self, unclaimed: Harness) -> None:
        reply = await _start(unclaimed, "ABCD-2345")
        assert "не подходит" in reply
        assert "Осталось попыток до блокировки на час: 4" in reply
        assert not _access(unclaimed).may_use(STRANGER_ID)

    async def test_ordinary_text_from_a_stranger_is_not_a_wrong_code(
        self, unclaimed: Harness, caplog: pytest.LogCaptureFixture
    ) -> None:
        for text in ("привет", "fragment", "/start hello"):
            await unclaimed.feed(unclaimed.updates.message(text, user_id=STRANGER_ID))
        assert not any("не подходит" in t for t in texts_to(unclaimed, STRANGER_ID))
        code = code_from_log(caplog)
        for _ in range(4):
            await _start(unclaimed, "ABCD-2345", OTHER_ID)
        assert "Теперь вы администратор" in await _start(unclaimed, code)

    async def test_five_wrong_codes_lock_out_for_an_hour(
        self, unclaimed: Harness, clock: FakeClock, caplog: pytest.LogCaptureFixture
    ) -> None:
        for _ in range(4):
            await _start(unclaimed, "ABCD-2345")
        assert "Слишком много неверных кодов" in await _start(unclaimed, "ABCD-2345")
        right = code_from_log(caplog)
        assert "Слишком много неверных кодов" in await _start(unclaimed, right)
        assert not _access(unclaimed).is_admin(STRANGER_ID)
        clock.advance(LOCKOUT_S)
        fresh = await _access(unclaimed).issue_code()
        assert "Теперь вы администратор" in await _start(unclaimed, fresh)

    async def test_an_expired_code_is_refused(
        self, unclaimed: Harness, clock: FakeClock, caplog: pytest.LogCaptureFixture
    ) -> None:
        clock.advance(LIFETIME_S + 1)
        assert "Срок действия кода истёк" in await _start(unclaimed, code_from_log(caplog))
        assert not _access(unclaimed).has_admin()

    async def test_in_a_group_a_code_is_not_read(
        self, unclaimed: Harness, caplog: pytest.LogCaptureFixture
    ) -> None:
        code = code_from_log(caplog)
        await unclaimed.feed(
            unclaimed.updates.command(
                f"/start@docs_test_bot {code}",
                user_id=STRANGER_ID,
                chat_id=-100_555,
                chat_type="supergroup",
            )
        )
        assert not _access(unclaimed).has_admin()
        assert "Теперь вы администратор" in await _start(unclaimed, code)

    async def test_the_code_is_never_logged_after_use(
        self, unclaimed: Harness, caplog: pytest.LogCaptureFixture
    ) -> None:
        code = code_from_log(caplog)
        await _start(unclaimed, "ABCD-2345")
        await _start(unclaimed, code)
        await _start(unclaimed, code, OTHER_ID)
        later = " ".join(r.getMessage() for r in caplog.records)
        assert "is now an admin" in later
        for secret in (code, code.replace("-", ""), "ABCD-2345", "ABCD2345", BOT_TOKEN):
            assert secret not in later


class TestClaimedBots:
    async def test_the_paired_admin_survives_a_restart(
        self, make_dispatcher: Any, clock: FakeClock, caplog: pytest.LogCaptureFixture
    ) -> None:
        async with make_dispatcher(tuning=tuning(clock), **NO_ADMINS) as first:
            await _start(first, code_from_log(caplog))
        caplog.clear()
        async with make_dispatcher(tuning=tuning(clock), **NO_ADMINS) as second:
            assert not [r for r in caplog.records if "become its admin" in r.getMessage()]
            assert _access(second).is_admin(STRANGER_ID)
            scoped = [
                c.scope.chat_id
                for c in second.startup_calls
                if isinstance(c, SetMyCommands) and isinstance(c.scope, BotCommandScopeChat)
            ]
            assert set(scoped) == {STRANGER_ID}

    async def test_an_admin_from_the_environment_means_no_code(
        self, harness: Harness, caplog: pytest.LogCaptureFixture
    ) -> None:
        assert not [r for r in caplog.records if "become its admin" in r.getMessage()]

    async def test_an_admin_sending_a_code_leaves_it_for_someone_else(
        self, harness: Harness
    ) -> None:
        code = await _access(harness).issue_code()
        assert "уже администратор" in await _start(
            harness, code, harness.settings.admin_ids.__iter__().__next__()
        )
        assert "Теперь вы администратор" in await _start(harness, code, OTHER_ID)

    async def test_a_user_asking_something_shaped_like_a_code_is_answered(
        self, harness: Harness
    ) -> None:
        harness.llm.reply_text("Это артикул.")
        await harness.feed(harness.updates.message("ABCD-2345", user_id=USER_ID))
        assert harness.llm.requests
        assert not _access(harness).is_admin(USER_ID)


class TestPairCommand:
    async def test_python_m_bot_pair_prints_a_code_the_running_bot_accepts(
        self, unclaimed: Harness, caplog: pytest.LogCaptureFixture, tmp_path: Path
    ) -> None:
        logged = code_from_log(caplog)
        env = {
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "DATA_DIR": str(unclaimed.settings.data_dir),
            "SANDBOX_DIR": str(unclaimed.settings.sandbox_dir),
        }
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _PAIR_AND_TELL_WHETHER_AIOGRAM_LOADED,
            env=env,
            cwd=tmp_path,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 0, err.decode()
        printed = out.decode()
        assert printed.splitlines()[-1] == "aiogram loaded: False"
        code = printed.split("/start ", 1)[1].split()[0]
        assert code != logged
        assert "не подходит" in await _start(unclaimed, logged), "a new code ends the old one"
        assert "Теперь вы администратор" in await _start(unclaimed, code, OTHER_ID)

    def test_pair_needs_no_token_or_key(
        self,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch,
        _root_logging_kept: None,
    ) -> None:
        monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
        assert main(["pair"]) == 0
        out = capsys.readouterr().out
        assert re.search(r"Send /start [A-Z2-9]{4}-[A-Z2-9]{4} to the bot", out)
        assert (tmp_path / "data" / "access.sqlite3").exists()


@pytest.fixture
def _root_logging_kept() -> Iterator[None]:
    """`main` sets up logging for the process; put the test run's own back afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)

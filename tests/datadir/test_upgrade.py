"""Data versions: an older DATA_DIR is upgraded at start, a newer one is refused untouched.

`tests/fixtures/data_v1/` is the DATA_DIR that release e83cea3 (the last before versions were
stamped) made when run as `python -m bot` against the fake Bot API and the fake model server,
with one question from user 1001 answered after one search; its search index was left out,
as a backup leaves it out. Tests copy it before touching it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.datadir import DATA_VERSION, DataVersionError, upgrade
from bot.datadir.steps import STEPS, DataDirStep, transaction
from bot.datadir.version import write_stamp
from bot.entrance.loading import load_settings
from bot.process.data_files import DataFiles
from bot.services import open_services
from bot.storage.usage import Tokens, Use
from bot.storage.usage.sqlite import SqliteUsage
from tests.agent.test_stream_dialects import answer_stream
from tests.bot.access_support import texts_to, tuning
from tests.bot.test_usage_command import ESTIMATED_RU, NOON
from tests.fakes.accounts import USER_ID
from tests.fakes.clock import FakeClock
from tests.fakes.fixtures import DispatcherFactory

REPO = Path(__file__).resolve().parents[2]
OLD_DATA = REPO / "tests" / "fixtures" / "data_v1"
OLD_QUESTION = "Сколько сахара в шарлотке?"
OLD_ANSWER = "Для шарлотки нужен 1 стакан сахара."


@pytest.fixture
def old_data(tmp_path: Path) -> Path:
    """A copy of the DATA_DIR the previous release made."""
    return Path(shutil.copytree(OLD_DATA, tmp_path / "data"))


USAGE_V2 = """
CREATE TABLE usage (
    id INTEGER PRIMARY KEY,
    question TEXT UNIQUE,
    user_id INTEGER,
    chat_id INTEGER,
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    at REAL NOT NULL,
    done INTEGER NOT NULL
);
CREATE TABLE usage_warnings (
    subject TEXT NOT NULL,
    period TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (subject, period)
);
"""
"""The usage file as data version 2 made it: no `estimated` column."""


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def indexes(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall()
    return {str(row[0]) for row in rows}


def stamp(data: Path) -> int:
    return int(json.loads((data / "data_version.json").read_text("utf-8"))["data_version"])


class TestUpgrade:
    async def test_the_previous_release_s_data_dir_is_upgraded_and_its_conversation_goes_on(
        self, make_dispatcher: DispatcherFactory, old_data: Path
    ) -> None:
        assert not (old_data / "data_version.json").exists()
        assert user_version(old_data / "history.sqlite3") == 1
        async with make_dispatcher(data_dir=old_data) as harness:
            assert stamp(old_data) == DATA_VERSION
            assert user_version(old_data / "history.sqlite3") == 2
            assert "turns_open" in indexes(old_data / "history.sqlite3")
            key = f"chat:{USER_ID}"
            (turn,) = await harness.services.history.load_turns(key, 10)
            assert [m["role"] for m in turn] == ["user", "assistant", "tool", "assistant"]
            assert turn[-1]["content"] == OLD_ANSWER

            harness.llm.reply_text("А яблок — четыре штуки.")
            await harness.feed(harness.updates.message("А яблок сколько?"))
            sent = harness.llm.requests[0]["messages"]
            contents = [m.get("content") for m in sent]
            assert OLD_QUESTION in contents
            assert OLD_ANSWER in contents
            assert contents[-1] == "А яблок сколько?"
        assert (old_data / "admin_menus.json").read_text("utf-8").strip() == "[2002]"

    def test_a_new_data_dir_is_stamped_with_the_current_version(self, tmp_path: Path) -> None:
        files = DataFiles(tmp_path)
        assert upgrade(files) == DATA_VERSION
        assert stamp(tmp_path) == DATA_VERSION

    def test_the_steps_run_in_order_and_each_is_stamped(self, old_data: Path) -> None:
        ran: list[int] = []
        steps = [
            DataDirStep(3, "third", lambda _: ran.append(3)),
            DataDirStep(2, "second", lambda _: ran.append(2)),
        ]
        upgrade(DataFiles(old_data), steps=sorted(steps, key=lambda m: m.version), current=3)
        assert ran == [2, 3]
        assert stamp(old_data) == 3
        assert [m.version for m in STEPS] == list(range(2, DATA_VERSION + 1))


class TestUsageMarkedEstimated:
    async def test_a_usage_file_without_the_column_is_upgraded_and_keeps_counting(
        self, make_dispatcher: DispatcherFactory, tmp_path: Path
    ) -> None:
        data = tmp_path / "data"
        data.mkdir()
        write_stamp(DataFiles(data), 2)
        with sqlite3.connect(data / "usage.sqlite3") as db:
            db.executescript(USAGE_V2)
            db.execute(
                "INSERT INTO usage (question, user_id, chat_id, model, kind, prompt_tokens, "
                "cached_tokens, completion_tokens, at, done) "
                "VALUES ('1:1', ?, ?, 'gpt-4.1-mini', 'answer', 300, 0, 20, ?, 1)",
                (USER_ID, USER_ID, NOON),
            )
        db.close()
        async with make_dispatcher(data_dir=data, tuning=tuning(FakeClock(NOON))) as harness:
            assert stamp(data) == DATA_VERSION
            await harness.feed(harness.updates.command("/usage"))
            assert "Сегодня: 320 токенов" in texts_to(harness, USER_ID)[-1]
            stream = answer_stream("Ответ без счёта.")
            harness.llm.reply_raw(stream, content_type="text/event-stream")
            await harness.feed(harness.updates.message("Что в договоре?"))
            await harness.feed(harness.updates.command("/usage"))
            text = texts_to(harness, USER_ID)[-1]
        assert "Сегодня: ≈" in text
        assert text.endswith(ESTIMATED_RU)
        with sqlite3.connect(data / "usage.sqlite3") as db:
            rows = db.execute("SELECT prompt_tokens, estimated FROM usage ORDER BY id").fetchall()
        db.close()
        assert rows[0] == (300, 0)
        assert rows[1][1] == 1

    def test_the_step_leaves_a_folder_without_usage_alone(self, old_data: Path) -> None:
        upgrade(DataFiles(old_data))
        assert not (old_data / "usage.sqlite3").exists()


def columns(path: Path, table: str) -> list[str]:
    with sqlite3.connect(path) as db:
        return [str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")]


class TestVersionThree:
    def test_notices_unanswered_and_usage_get_their_new_columns(self, tmp_path: Path) -> None:
        files = DataFiles(tmp_path)
        old = {
            files.notices: "CREATE TABLE notice_subscriptions (chat_id INTEGER, folder TEXT)",
            files.unanswered: "CREATE TABLE unanswered (id INTEGER PRIMARY KEY, question TEXT)",
            files.usage: "CREATE TABLE usage (id INTEGER PRIMARY KEY, chat_id INTEGER)",
        }
        for path, table in old.items():
            with sqlite3.connect(path) as db:
                db.execute(table)
        with sqlite3.connect(files.unanswered) as db:
            db.execute("INSERT INTO unanswered (question) VALUES ('где справка')")
        (tmp_path / "data_version.json").write_text('{"data_version": 2}', encoding="utf-8")
        assert upgrade(files) == 2
        assert stamp(tmp_path) == DATA_VERSION
        assert columns(files.notices, "notice_subscriptions")[-1] == "subscribed_by"
        assert columns(files.usage, "usage")[-3:] == ["thread_id", "estimated", "image_tokens"]
        with sqlite3.connect(files.unanswered) as db:
            assert db.execute("SELECT question, files FROM unanswered").fetchall() == [
                ("где справка", "[]")
            ]
        STEPS[1].apply(files)  # again, as after a failure between two files: nothing to add
        assert columns(files.usage, "usage").count("thread_id") == 1


class TestVersionFour:
    async def test_usage_gets_image_tokens_and_old_rows_count_none(self, tmp_path: Path) -> None:
        files = DataFiles(tmp_path)
        with sqlite3.connect(files.usage) as db:
            db.executescript(USAGE_V2)
            db.execute("ALTER TABLE usage ADD COLUMN estimated INTEGER NOT NULL DEFAULT 0")
            db.execute("ALTER TABLE usage ADD COLUMN thread_id INTEGER")
            db.execute(
                "INSERT INTO usage (question, user_id, chat_id, model, kind, prompt_tokens, "
                "cached_tokens, completion_tokens, at, done) "
                "VALUES ('1:1', 7, 7, 'gpt-4.1-mini', 'answer', 300, 0, 20, 0, 1)"
            )
        db.close()
        write_stamp(files, 3)

        assert upgrade(files) == 3

        assert stamp(tmp_path) == 4
        assert columns(files.usage, "usage")[-1] == "image_tokens"
        usage = SqliteUsage(files.usage)
        try:
            await usage.record(
                Use("gpt-4.1-mini", "answer", Tokens(900, 0, 30, images=765), user_id=7)
            )
            spent = await usage.spent(who="user", id=7, since=0.0)
        finally:
            await usage.close()
        assert spent == Tokens(1200, 0, 50, images=765)


class TestFailedUpgrade:
    def test_a_failing_step_is_rolled_back_and_the_old_schema_still_works(
        self, old_data: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        history = old_data / "history.sqlite3"

        def breaks(files: DataFiles) -> None:
            with transaction(files.history) as db:
                db.execute("CREATE TABLE half_done (x INTEGER)")
                db.execute("PRAGMA user_version = 3")
                db.execute("INSERT INTO no_such_table VALUES (1)")

        steps = [STEPS[0], DataDirStep(3, "a step that breaks", breaks)]
        with pytest.raises(DataVersionError) as caught:
            upgrade(DataFiles(old_data), steps=steps, current=3)
        message = str(caught.value)
        assert "to data version 3 (a step that breaks) failed" in message
        assert "no such table: no_such_table" in message
        assert "stays at version 2" in message
        assert stamp(old_data) == 2
        assert user_version(history) == 2
        with sqlite3.connect(history) as db:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
            assert "half_done" not in tables
            assert db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 4

    def test_a_failing_first_step_leaves_the_folder_as_the_old_release_left_it(
        self, old_data: Path
    ) -> None:
        before = {p.name: p.read_bytes() for p in old_data.iterdir()}

        def breaks(_: DataFiles) -> None:
            raise OSError(28, "No space left on device")

        with pytest.raises(DataVersionError, match="stays at version 1"):
            upgrade(DataFiles(old_data), steps=[DataDirStep(2, "step", breaks)])
        assert {p.name: p.read_bytes() for p in old_data.iterdir()} == before


class TestNewerData:
    async def test_open_services_refuses_data_stamped_newer(self, tmp_path: Path) -> None:
        data = tmp_path / "data"
        data.mkdir()
        (data / "data_version.json").write_text('{"data_version": 99}', encoding="utf-8")
        settings = load_settings(data_dir=data, sandbox_dir=tmp_path / "docs")
        with pytest.raises(DataVersionError, match="newer than this bot's"):
            await open_services(settings)
        assert [p.name for p in data.iterdir()] == ["data_version.json"]

    def test_the_bot_exits_2_with_a_clear_message(self, tmp_path: Path) -> None:
        data = tmp_path / "data"
        data.mkdir()
        (data / "data_version.json").write_text('{"data_version": 99}', encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "bot", "chat"],
            cwd=tmp_path,
            env={
                "PYTHONPATH": str(REPO),
                "PATH": "/usr/bin:/bin",
                "DATA_DIR": str(data),
                "SANDBOX_DIR": str(tmp_path / "docs"),
                "OPENAI_API_KEY": "sk-local-test-key",
            },
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        assert f"holds data version 99, newer than this bot's {DATA_VERSION}" in done.stderr
        assert "written by a newer release" in done.stderr
        assert "Traceback" not in done.stderr
        assert [p.name for p in data.iterdir()] == ["data_version.json"]

    def test_an_unreadable_stamp_is_refused(self, tmp_path: Path) -> None:
        (tmp_path / "data_version.json").write_text("{not json", encoding="utf-8")
        with pytest.raises(DataVersionError, match="does not hold a data version"):
            upgrade(DataFiles(tmp_path))

"""An admin limited to some folders sees nothing outside them, on any surface: the scopes they
give with `/scope` and the folders it shows, `/status`, `/audit`, `/gaps` (a question kept by a
👎 "not in the documents" too), `/usage` (a forum topic by its own scope), and the Mini App's
audit, scopes and usage tabs.

The admin (`ADMIN_ID`) is given `документы` in SCOPES_FILE; `hr/` and `финансы/` are outside.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiogram.types import InlineKeyboardMarkup

from bot.telegram.texts.scope import ENGLISH_SCOPE, RUSSIAN_SCOPE
from tests.bot.source_support import CHARLOTTE, GROUP_ID, Answered, ask_reading, in_topic, tap
from tests.bot.test_feedback import PROMPT_ID, _expect_prompt, _prompts
from tests.fakes.accounts import ADMIN_ID, BOT_USERNAME, USER_ID
from tests.fakes.harness import Harness
from tests.fakes.updates import mention_entity
from tools.jail.scope import Scope

SCOPED = f'{ADMIN_ID} = ["документы"]\n'
TOPICS = SCOPED + f'{GROUP_ID} = ["документы"]\n"{GROUP_ID}/7" = ["hr"]\n'
"""The group sees the admin's folder; its topic 7 sees `hr` only."""
GROUP = {"chat_id": GROUP_ID, "chat_type": "supergroup", "user_id": ADMIN_ID}
MINE = "<code>документы/</code>"


def scopes_file(tmp_path: Path, text: str = SCOPED) -> Path:
    path = tmp_path / "scopes.toml"
    path.write_text(text, encoding="utf-8")
    return path


async def command(harness: Harness, text: str, **where: Any) -> str:
    await harness.feed(harness.updates.command(text, **where))
    return str(harness.session.called("sendMessage")[-1].text)


async def log_outside_and_inside(harness: Harness) -> None:
    """Audit entries about paths and chats inside and outside the admin's folders."""
    audit = harness.dp["audit"]
    other = {"actor_id": 7, "actor_name": "Other"}
    await audit.record("upload", "hr/зарплаты.xlsx", **other)
    await audit.record("upload", "документы/план.md", **other)
    await audit.record("move", "документы/старое.md", detail="финансы/старое.md", **other)
    await audit.record("delete", "финансы/бюджет_2024.csv", **other)
    await audit.record("scope", "-100777", detail="hr, документы", **other)
    await audit.record("scope", "-100778", detail="*", **other)
    await audit.record("scope", "-100779", detail="документы", **other)
    await audit.record("grant", "4444", detail="user, command", **other)


async def ask_in_group(harness: Harness, tokens: tuple[int, int], topic: int | None) -> None:
    """A question in the group (in forum `topic`) whose answer used `tokens`."""
    harness.llm.reply_text("Ответ.", usage=tokens)
    text = f"@{BOT_USERNAME} что в договоре?"
    await harness.feed(
        harness.updates.message(
            text,
            chat_id=GROUP_ID,
            chat_type="supergroup",
            entities=[mention_entity(text, f"@{BOT_USERNAME}")],
            **(in_topic(topic) if topic is not None else {}),
        )
    )


async def not_in_the_documents(harness: Harness, answered: Answered) -> None:
    """The asker's 👎 under `answered`, then "not in the documents" under the question why."""
    _expect_prompt(harness, USER_ID)
    await tap(harness, answered, answered.votes[1][1])
    prompt = _prompts(harness)[-1]
    assert isinstance(prompt.reply_markup, InlineKeyboardMarkup)
    reasons = prompt.reply_markup.inline_keyboard
    assert reasons[0][0].callback_data is not None
    message = {
        "message_id": PROMPT_ID,
        "date": 0,
        "chat": {"id": USER_ID, "type": "private", "first_name": "User"},
        "text": str(prompt.text),
        "reply_markup": prompt.reply_markup.model_dump(mode="json", exclude_none=True),
    }
    why = harness.updates.callback(reasons[0][0].callback_data, user_id=USER_ID, message=message)
    await harness.feed(why)


INSIDE_AUDIT = {
    ("upload", "документы/план.md"),
    ("scope", "-100779"),
    ("grant", "4444"),
}


class TestScopeGivesNoMoreThanTheAdminSees:
    async def test_a_scoped_admin_cannot_open_a_group_wider(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        async with make_dispatcher(scopes_file=scopes_file(tmp_path)) as harness:
            refused = RUSSIAN_SCOPE.beyond.format(folders=MINE)
            assert await command(harness, "/scope *", **GROUP) == refused
            assert await command(harness, "/scope hr", **GROUP) == refused
            assert await command(harness, "/scope документы, hr", **GROUP) == refused
            assert (await harness.dp["scopes"].of_chat(GROUP_ID)).source == "default"
            done = await command(harness, "/scope документы", **GROUP)
            assert done == RUSSIAN_SCOPE.set_done.format(folders=MINE)

    async def test_a_reset_that_would_widen_the_chat_is_refused(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        async with make_dispatcher(scopes_file=scopes_file(tmp_path)) as harness:
            scopes = harness.dp["scopes"]
            await scopes.set_chat(GROUP_ID, None, by=7, thread_id=5)
            topic = {**GROUP, **in_topic(5), "language_code": "en"}
            said = await command(harness, "/scope reset", **topic)
            assert said == ENGLISH_SCOPE.reset_beyond.format(folders=MINE)
            assert (await scopes.of_chat(GROUP_ID, 5)).source == "telegram"

    async def test_an_admin_who_sees_everything_still_gives_everything(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher() as harness:
            done = await command(harness, "/scope *", **GROUP)
            assert done == RUSSIAN_SCOPE.set_done.format(folders=RUSSIAN_SCOPE.everything)


class TestScopeShowsNoFolderOutside:
    async def test_a_group_given_more_by_the_file_shows_only_the_admins_folders(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        text = SCOPED + f'{GROUP_ID} = ["hr", "документы"]\n'
        async with make_dispatcher(scopes_file=scopes_file(tmp_path, text)) as harness:
            shown = await command(harness, "/scope", **GROUP)
        assert RUSSIAN_SCOPE.within.format(folders=MINE) in shown
        assert RUSSIAN_SCOPE.outside in shown
        assert RUSSIAN_SCOPE.from_file in shown
        assert "hr" not in shown

    async def test_a_group_given_only_other_folders_names_none_of_them(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        async with make_dispatcher(scopes_file=scopes_file(tmp_path)) as harness:
            scopes = harness.dp["scopes"]
            await scopes.set_chat(GROUP_ID, Scope.of(["hr"]), by=7)
            shown = await command(harness, "/scope", **GROUP, language_code="en")
        none = ENGLISH_SCOPE.within.format(folders=ENGLISH_SCOPE.none_within)
        assert none in shown
        assert ENGLISH_SCOPE.outside in shown
        assert "hr" not in shown

    async def test_a_group_open_to_everything_is_not_called_everything(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        async with make_dispatcher(scopes_file=scopes_file(tmp_path)) as harness:
            shown = await command(harness, "/scope", **GROUP)
        assert RUSSIAN_SCOPE.within.format(folders=MINE) in shown
        assert RUSSIAN_SCOPE.outside in shown
        assert RUSSIAN_SCOPE.everything not in shown

    async def test_a_group_within_the_admins_folders_is_shown_as_it_is(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        text = SCOPED + f'{GROUP_ID} = ["документы"]\n'
        async with make_dispatcher(scopes_file=scopes_file(tmp_path, text)) as harness:
            shown = await command(harness, "/scope", **GROUP)
        assert RUSSIAN_SCOPE.current.format(folders=MINE) in shown
        assert RUSSIAN_SCOPE.outside not in shown


class TestReportsNameNothingOutside:
    async def test_status_lists_only_the_scopes_within(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        text = SCOPED + 'default = ["hr"]\n'
        async with make_dispatcher(scopes_file=scopes_file(tmp_path, text)) as harness:
            scopes = harness.dp["scopes"]
            await scopes.set_chat(-100777, scopes.rules.of(0), by=7)
            await scopes.set_chat(-100779, scopes.rules.of(ADMIN_ID), by=7)
            status = await command(harness, "/status", user_id=ADMIN_ID)
            assert "-100779" in status
            assert "-100777" not in status
            assert "hr/" not in status

    async def test_audit_shows_only_entries_within(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        async with make_dispatcher(scopes_file=scopes_file(tmp_path)) as harness:
            await log_outside_and_inside(harness)
            shown = await command(harness, "/audit", user_id=ADMIN_ID)
            assert "документы/план.md" in shown
            assert "-100779" in shown
            assert "4444" in shown
            for outside in ("hr/", "финансы/", "-100777", "-100778"):
                assert outside not in shown

    async def test_the_pages_audit_and_scopes_tabs_name_nothing_outside(
        self,
        open_app: Any,
        tmp_path: Path,
    ) -> None:
        text = SCOPED + 'default = ["hr"]\n-100700 = ["hr"]\n-100701 = ["документы"]\n'
        async with open_app(scopes_file=scopes_file(tmp_path, text)) as app:
            await log_outside_and_inside(app.harness)
            scopes = app.harness.dp["scopes"]
            await scopes.set_chat(-100777, None, by=7, thread_id=3)
            await scopes.set_chat(-100779, scopes.rules.of(ADMIN_ID), by=7)
            _, audit = await app.get("audit")
            assert {(e["action"], e["subject"]) for e in audit["entries"]} == INSIDE_AUDIT
            _, body = await app.get("scopes")
            assert "default" not in body["file"]
            keys = {e["key"] for e in body["file"]["entries"]}
            assert keys == {str(ADMIN_ID), "-100701"}
            assert [s["place"] for s in body["set"]] == ["-100779"]


class TestGapsFromFeedback:
    async def test_not_in_the_documents_under_an_answer_that_read_outside_is_not_shown(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        async with make_dispatcher(scopes_file=scopes_file(tmp_path)) as harness:
            await not_in_the_documents(harness, await ask_reading(harness, "hr/отпуск.md"))
            assert "где это?" not in await command(harness, "/gaps", user_id=ADMIN_ID)
            await not_in_the_documents(harness, await ask_reading(harness, CHARLOTTE))
            assert "где это?" in await command(harness, "/gaps", user_id=ADMIN_ID)


class TestUsageByForumTopic:
    async def test_usage_counts_a_topic_by_the_topics_scope(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        async with make_dispatcher(scopes_file=scopes_file(tmp_path, TOPICS)) as harness:
            await ask_in_group(harness, (100, 20), None)
            await ask_in_group(harness, (5000, 500), 7)
            text = await command(harness, "/usage", user_id=ADMIN_ID, language_code="en")
        assert "Total: 120 tokens" in text

    async def test_the_pages_usage_counts_a_topic_by_the_topics_scope(
        self,
        open_app: Any,
        tmp_path: Path,
    ) -> None:
        async with open_app(scopes_file=scopes_file(tmp_path, TOPICS)) as app:
            await ask_in_group(app.harness, (100, 20), None)
            await ask_in_group(app.harness, (5000, 500), 7)
            _, usage = await app.get("usage")
            assert usage["total"]["tokens"] == 120
            assert [c["id"] for c in usage["chats"]] == [GROUP_ID]

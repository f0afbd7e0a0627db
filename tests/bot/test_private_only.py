"""Private-only commands and buttons: in a group they say where they work, and do nothing."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bot.telegram.texts import texts_for
from tests.bot.access_support import button_data, sent_to, tap, texts_to
from tests.bot.test_documents import _QUESTION_ID, CHARLOTTE, _ask, _confirm
from tests.fakes.accounts import ADMIN_ID, STRANGER_ID, USER_ID, bot_user_json
from tests.fakes.harness import Harness

GROUP_ID = -100_444
RU = texts_for("ru")


def _in_group(harness: Harness, text: str, user_id: int = ADMIN_ID) -> Any:
    return harness.updates.command(text, user_id=user_id, chat_id=GROUP_ID, chat_type="supergroup")


class TestCommandsInAGroup:
    @pytest.mark.parametrize(
        ("command", "notice"),
        [
            (f"/rm {CHARLOTTE}", RU.manage_in_private),
            ("/mv README.md архив/", RU.manage_in_private),
            ("/trash", RU.manage_in_private),
            (f"/allow {STRANGER_ID}", RU.access_in_private),
            (f"/deny {USER_ID}", RU.access_in_private),
            ("/users", RU.access_in_private),
            ("/audit", RU.access_in_private),
            ("/start", RU.group_privacy),
        ],
        ids=["rm", "mv", "trash", "allow", "deny", "users", "audit", "start"],
    )
    async def test_an_admins_private_command_says_where_it_works_and_changes_nothing(
        self, harness: Harness, command: str, notice: str
    ) -> None:
        root = harness.settings.sandbox_dir
        access = harness.dp.workflow_data["access"]
        await harness.feed(_in_group(harness, command))
        (reply,) = sent_to(harness, GROUP_ID)
        assert reply.text == notice
        assert reply.reply_markup is None
        assert (root / CHARLOTTE).exists() and (root / "README.md").exists()
        assert access.may_use(USER_ID) and not access.may_use(STRANGER_ID)
        assert not harness.session.called("editMessageText")

    async def test_someone_elses_private_command_in_a_group_is_for_admins_only(
        self, harness: Harness
    ) -> None:
        await harness.feed(_in_group(harness, f"/rm {CHARLOTTE}", user_id=USER_ID))
        assert texts_to(harness, GROUP_ID) == [RU.admin_only]
        assert (harness.settings.sandbox_dir / CHARLOTTE).exists()

    async def test_the_same_commands_work_in_a_private_chat(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/users", user_id=ADMIN_ID))
        assert str(USER_ID) in texts_to(harness, ADMIN_ID)[-1]
        question = await _ask(harness, f"/rm {CHARLOTTE}")
        assert len(button_data(question)) == 2


class TestRestoreButtons:
    async def _restore_button(self, harness: Harness) -> str:
        await _confirm(harness, f"/rm {CHARLOTTE}")
        listing = await _ask(harness, "/trash")
        (restore,) = button_data(listing)
        return restore

    async def test_a_tap_from_a_group_is_refused_and_restores_nothing(
        self, harness: Harness
    ) -> None:
        restore = await self._restore_button(harness)
        harness.session.add_result("answerCallbackQuery", True)
        shown_in_group = {
            "message_id": _QUESTION_ID,
            "date": int(time.time()),
            "chat": {"id": GROUP_ID, "type": "supergroup", "title": "Team"},
            "from": bot_user_json(),
            "text": "trash",
        }
        await harness.feed(
            harness.updates.callback(restore, user_id=ADMIN_ID, message=shown_in_group)
        )
        (answer,) = harness.session.called("answerCallbackQuery")[-1:]
        assert answer.text == RU.button_outdated and answer.show_alert
        assert not (harness.settings.sandbox_dir / CHARLOTTE).exists()

    async def test_a_tap_by_someone_not_an_admin_is_refused(self, harness: Harness) -> None:
        restore = await self._restore_button(harness)
        listing = sent_to(harness, ADMIN_ID)[-1]
        await tap(harness, listing, _QUESTION_ID, restore, USER_ID)
        (answer,) = harness.session.called("answerCallbackQuery")[-1:]
        assert answer.text == RU.admin_only and answer.show_alert
        assert not (harness.settings.sandbox_dir / CHARLOTTE).exists()

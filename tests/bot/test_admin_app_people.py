"""The admins' page changes access as `/allow` and `/deny` do: under the same rules, with the
same effects in Telegram, and only for what is a Telegram user id."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from aiogram.methods import DeleteMyCommands, SetChatMenuButton
from aiogram.types import MenuButtonDefault

from bot.access import AccessPolicy, Person
from bot.storage.access import codes
from bot.telegram.texts import texts_for
from tests.bot.admin_app_support import App
from tests.fakes.accounts import ADMIN_ID

PETRA = Person(4004, "Petra")
OSKAR = Person(4005, "Oskar")
TOO_LARGE = [2**52, 2**63, 2**64, 9_999_999_999_999_999_999, "18446744073709551616"]
NOT_IDS = [0, -5, "-5", "1e3", "12.0", 1.5, True, "１２", "٣", " ", "0x10", [1], {"id": 1}]


async def _paired(access: AccessPolicy, *people: Person) -> None:
    for person in people:
        code = codes.normalize(await access.issue_code())
        assert code is not None
        assert (await access.pair(person, code)).grant is not None


def _menus_taken(app: App, user_id: int) -> tuple[int, int]:
    """How many of the admin menu's parts `user_id` lost: commands per language, button."""
    session = app.harness.session
    commands = [c for c in session.called("deleteMyCommands") if c.scope.chat_id == user_id]
    buttons = [
        c
        for c in session.called("setChatMenuButton")
        if c.chat_id == user_id and isinstance(c.menu_button, MenuButtonDefault)
    ]
    assert all(isinstance(c, DeleteMyCommands) for c in commands)
    assert all(isinstance(c, SetChatMenuButton) for c in buttons)
    return len(commands), len(buttons)


class TestRevokeFollowsTheCommandsRules:
    async def test_an_admin_cannot_revoke_themselves(self, open_app: Any) -> None:
        async with open_app(admin_ids=frozenset()) as app:
            access = app.harness.dp["access"]
            await _paired(access, PETRA)
            body = {"user_id": PETRA.user_id, "confirmed": True}
            status, answer = await app.post("revoke", body, user_id=PETRA.user_id)
            assert status == 409
            assert answer == {"error": texts_for("ru").deny_self, "result": "self"}
            assert access.is_admin(PETRA.user_id)
            assert _menus_taken(app, PETRA.user_id) == (0, 0)

    async def test_a_revoked_admin_loses_the_admin_menu_as_after_deny(self, open_app: Any) -> None:
        async with open_app(admin_ids=frozenset()) as app:
            access = app.harness.dp["access"]
            await _paired(access, PETRA, OSKAR)
            body = {"user_id": OSKAR.user_id, "confirmed": True}
            status, answer = await app.post("revoke", body, user_id=PETRA.user_id)
            assert status == 200
            assert answer == {
                "result": "removed",
                "text": texts_for("ru").deny_done.format(id=OSKAR.user_id),
            }
            assert not access.is_admin(OSKAR.user_id)
            commands, buttons = _menus_taken(app, OSKAR.user_id)
            assert commands >= 1
            assert buttons == 1
            status, _ = await app.get("me", user_id=OSKAR.user_id)
            assert status == 403

    async def test_an_admin_from_the_environment_stays_and_the_page_says_why(
        self, open_app: Any
    ) -> None:
        async with open_app() as app:
            await _paired(app.harness.dp["access"], PETRA)
            body = {"user_id": ADMIN_ID, "confirmed": True}
            status, answer = await app.post("revoke", body, user_id=PETRA.user_id)
            assert status == 409
            assert answer["result"] == "env_admin"
            assert "ADMIN_IDS" in answer["error"]
            assert "<" not in answer["error"]


class TestOnlyTelegramUserIds:
    @pytest.mark.parametrize("path", ["allow", "revoke", "requests"])
    async def test_an_id_out_of_telegrams_range_is_a_clear_400(
        self, open_app: Any, path: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        async with open_app() as app:
            access = app.harness.dp["access"]
            for value in [*TOO_LARGE, *NOT_IDS]:
                body = {"user_id": value, "confirmed": True, "action": "allow"}
                status, answer = await app.post(path, body)
                assert status == 400, value
                assert answer["error"], value
            _, answer = await app.post(path, {**body, "user_id": 2**64})
            assert answer == {
                "error": f"⚠️ {2**64} — не ID пользователя Telegram: ID — целое число "
                f"от 1 до {2**52 - 1}."
            }
            assert access.grants() == []
        loud = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert loud == [], [r.getMessage() for r in loud]

    async def test_the_largest_telegram_id_is_let_in(self, open_app: Any) -> None:
        async with open_app() as app:
            largest = 2**52 - 1
            status, answer = await app.post("allow", {"user_id": str(largest)})
            assert (status, answer) == (200, {"result": "allowed"})
            assert app.harness.dp["access"].may_use(largest)

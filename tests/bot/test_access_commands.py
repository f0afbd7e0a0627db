"""Admins manage access from Telegram: /allow, /deny, /users, /status; the environment wins."""

from __future__ import annotations

from typing import Any

from aiogram.methods import SetMyCommands
from aiogram.types import BotCommandScopeChat

from bot.access import AccessPolicy
from bot.process.version import bot_version
from tests.bot.access_support import expect_requests, sent_to, tap, texts_to
from tests.fakes.accounts import ADMIN_ID, STRANGER_ID, USER_ID
from tests.fakes.harness import Harness

GROUP_ID = -100_555


def _access(harness: Harness) -> AccessPolicy:
    access = harness.dp.workflow_data["access"]
    assert isinstance(access, AccessPolicy)
    return access


async def _admin(harness: Harness, command: str, admin_id: int = ADMIN_ID) -> str:
    """Send a command as an admin in a private chat; return the bot's answer."""
    await harness.feed(harness.updates.command(command, user_id=admin_id))
    return texts_to(harness, admin_id)[-1]


class TestAllowAndDeny:
    async def test_allow_lets_someone_in_and_it_survives_a_restart(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher() as harness:
            assert "теперь может пользоваться" in await _admin(harness, f"/allow {STRANGER_ID}")
            harness.llm.reply_text("Вот рецепт.")
            await harness.feed(harness.updates.message("рецепт?", user_id=STRANGER_ID))
            assert texts_to(harness, STRANGER_ID)[-1] == "Вот рецепт."
        async with make_dispatcher() as restarted:
            assert _access(restarted).may_use(STRANGER_ID)
            assert not _access(restarted).is_admin(STRANGER_ID)
            listing = await _admin(restarted, "/users")
            assert f"<code>{STRANGER_ID}</code> — пользователь, доступ дал(а) User{ADMIN_ID}" in (
                listing
            )

    async def test_deny_takes_it_away_and_it_survives_a_restart(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher() as harness:
            await _admin(harness, f"/allow {STRANGER_ID}")
            assert "больше не может" in await _admin(harness, f"/deny {STRANGER_ID}")
            assert not _access(harness).may_use(STRANGER_ID)
            assert "ничего не изменилось" in await _admin(harness, f"/deny {STRANGER_ID}")
        async with make_dispatcher() as restarted:
            assert not _access(restarted).may_use(STRANGER_ID)
            await restarted.feed(restarted.updates.message("рецепт?", user_id=STRANGER_ID))
            assert not restarted.llm.requests

    async def test_allowing_someone_who_asked_settles_their_request(
        self, harness: Harness
    ) -> None:
        ids = expect_requests(harness, ADMIN_ID)
        await harness.feed(harness.updates.message("пустите", user_id=STRANGER_ID))
        await _admin(harness, f"/allow {STRANGER_ID}")
        edit = harness.session.called("editMessageText")[-1]
        assert edit.message_id == ids[ADMIN_ID]
        assert "was let in by User2002" in edit.text
        assert "Теперь у вас есть доступ" in texts_to(harness, STRANGER_ID)[-1]

    async def test_allow_of_someone_with_access_changes_nothing(self, harness: Harness) -> None:
        assert "уже может" in await _admin(harness, f"/allow {USER_ID}")
        assert "уже может" in await _admin(harness, f"/allow {ADMIN_ID}")
        assert _access(harness).grants() == []

    async def test_a_command_without_an_id_explains_itself(self, harness: Harness) -> None:
        assert "/allow 123456789" in await _admin(harness, "/allow")
        assert "/deny 123456789" in await _admin(harness, "/deny @somebody")
        assert _access(harness).grants() == []

    async def test_a_number_that_is_no_telegram_user_id_is_answered(
        self, harness: Harness
    ) -> None:
        for command in (
            "/allow 9999999999999999999",
            "/allow 18446744073709551616",
            f"/allow {2**52}",
            "/allow 0",
            "/deny -5",
            "/allow １２",
        ):
            reply = await _admin(harness, command)
            assert "не ID пользователя Telegram" in reply, command
            assert f"от 1 до {2**52 - 1}" in reply
        assert _access(harness).grants() == []
        assert "теперь может" in await _admin(harness, f"/allow {2**52 - 1}")
        assert _access(harness).may_use(2**52 - 1)

    async def test_a_made_up_request_button_of_no_user_changes_nothing(
        self, harness: Harness
    ) -> None:
        ids = expect_requests(harness, ADMIN_ID)
        await harness.feed(harness.updates.message("пустите", user_id=STRANGER_ID))
        (copy,) = sent_to(harness, ADMIN_ID)
        await tap(harness, copy, ids[ADMIN_ID], f"access:allow:{2**64}", ADMIN_ID)
        (answered,) = harness.session.called("answerCallbackQuery")
        assert not answered.show_alert
        assert _access(harness).grants() == []
        assert not harness.session.called("editMessageText")


class TestTheEnvironmentWins:
    async def test_an_admin_from_env_cannot_be_denied(self, harness: Harness) -> None:
        code = await _access(harness).issue_code()
        await harness.feed(harness.updates.command(f"/start {code}", user_id=4004))
        assert "ADMIN_IDS" in await _admin(harness, f"/deny {ADMIN_ID}", 4004)
        assert _access(harness).is_admin(ADMIN_ID)

    async def test_a_user_from_env_keeps_access_until_removed_there(
        self, harness: Harness
    ) -> None:
        reply = await _admin(harness, f"/deny {USER_ID}")
        assert "ALLOWED_USER_IDS" in reply and ".env" in reply
        assert _access(harness).may_use(USER_ID)

    async def test_an_admin_cannot_deny_themselves(self, harness: Harness) -> None:
        assert "самого себя" in await _admin(harness, f"/deny {ADMIN_ID}")

    async def test_with_allow_all_denying_says_everyone_still_may(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(allow_all=True) as harness:
            await _admin(harness, f"/allow {STRANGER_ID}")
            assert "ALLOW_ALL" in await _admin(harness, f"/deny {STRANGER_ID}")

    async def test_an_admin_cannot_deny_themselves_even_when_paired(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(admin_ids=frozenset()) as harness:
            code = await _access(harness).issue_code()
            await harness.feed(harness.updates.command(f"/start {code}", user_id=4004))
            assert "самого себя" in await _admin(harness, "/deny 4004", 4004)
            assert _access(harness).is_admin(4004)
            assert not harness.session.called("deleteMyCommands")

    async def test_a_denied_paired_admin_loses_the_admin_menu(self, harness: Harness) -> None:
        code = await _access(harness).issue_code()
        await harness.feed(harness.updates.command(f"/start {code}", user_id=4004))
        await _admin(harness, "/deny 4004")
        assert not _access(harness).is_admin(4004)
        removed = harness.session.called("deleteMyCommands")
        assert {c.scope.chat_id for c in removed} == {4004}


class TestWhoSeesWhat:
    async def test_users_lists_env_and_granted_apart(self, harness: Harness) -> None:
        await _admin(harness, f"/allow {STRANGER_ID}")
        listing = await _admin(harness, "/users")
        env_part, granted_part = listing.split("Доступ дан в Telegram")
        assert f"<code>{ADMIN_ID}</code> — администратор" in env_part
        assert f"<code>{USER_ID}</code> — пользователь" in env_part
        assert f"<code>{STRANGER_ID}</code>" in granted_part
        assert "UTC" in granted_part

    async def test_status_shows_grants_to_admins_only(self, harness: Harness) -> None:
        await _admin(harness, f"/allow {STRANGER_ID}")
        status = await _admin(harness, "/status")
        assert "Доступ дан в Telegram: 1" in status
        assert f"доступ дал(а) User{ADMIN_ID}" in status
        await harness.feed(harness.updates.command("/status", user_id=USER_ID))
        assert "Доступ дан в Telegram" not in texts_to(harness, USER_ID)[-1]

    async def test_status_shows_the_version_to_admins_only(self, harness: Harness) -> None:
        status = await _admin(harness, "/status")
        assert f"Версия бота: {bot_version()}" in status
        assert bot_version() != "unknown"
        await harness.feed(harness.updates.command("/status", user_id=USER_ID))
        assert "Версия бота" not in texts_to(harness, USER_ID)[-1]

    async def test_non_admins_are_refused(self, harness: Harness) -> None:
        for command in (f"/allow {STRANGER_ID}", "/users", f"/deny {ADMIN_ID}"):
            await harness.feed(harness.updates.command(command, user_id=USER_ID))
            assert "только для администраторов" in texts_to(harness, USER_ID)[-1]
        assert not harness.llm.requests
        assert not _access(harness).may_use(STRANGER_ID)

    async def test_in_a_group_the_list_stays_private(self, harness: Harness) -> None:
        await harness.feed(
            harness.updates.command(
                "/users", user_id=ADMIN_ID, chat_id=GROUP_ID, chat_type="supergroup"
            )
        )
        (reply,) = sent_to(harness, GROUP_ID)
        assert "в личном чате" in reply.text
        assert str(USER_ID) not in reply.text
        assert not harness.llm.requests

    async def test_help_and_menu_for_admins_name_the_access_commands(
        self, harness: Harness
    ) -> None:
        help_text = await _admin(harness, "/help")
        assert "/allow ID" in help_text and "/deny ID" in help_text and "/users" in help_text
        await harness.feed(harness.updates.command("/help", user_id=USER_ID))
        assert "/allow" not in texts_to(harness, USER_ID)[-1]
        scoped = [
            c
            for c in harness.startup_calls
            if isinstance(c, SetMyCommands) and isinstance(c.scope, BotCommandScopeChat)
        ]
        assert scoped
        for menu in scoped:
            assert {"reindex", "allow", "deny", "users"} <= {c.command for c in menu.commands}

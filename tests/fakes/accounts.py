"""Who is who in the fakes: the test bot's identity and token, and the users that write to it."""

from __future__ import annotations

from typing import Any

BOT_ID = 42
BOT_USERNAME = "docs_test_bot"
BOT_TOKEN = "42:TEST_token_for_tests_only_abcdefgh"
USER_ID = 1001
ADMIN_ID = 2002
STRANGER_ID = 3003


def bot_user_json() -> dict[str, Any]:
    """The bot's own `User`, as getMe returns it."""
    return {
        "id": BOT_ID,
        "is_bot": True,
        "first_name": "Docs",
        "username": BOT_USERNAME,
        "can_join_groups": True,
        "can_read_all_group_messages": False,
        "supports_inline_queries": False,
    }

"""The scope store on both backends: SQLite in DATA_DIR and the shared PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import PostgresDatabase
from bot.storage.scopes import ChatOverride, ScopeStore
from bot.storage.scopes.postgres import PostgresScopeStore
from bot.storage.scopes.sqlite import SqliteScopeStore
from tools.jail.scope import Scope


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[ScopeStore]:
    store = SqliteScopeStore(tmp_path / "scopes.sqlite3")
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def postgres_store(postgres_database: PostgresDatabase) -> ScopeStore:
    return PostgresScopeStore(postgres_database)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest) -> ScopeStore:
    chosen: ScopeStore = request.getfixturevalue(f"{request.param}_store")
    return chosen


class TestChatOverrides:
    async def test_set_replace_list_and_clear(self, store: ScopeStore) -> None:
        assert await store.chat_override(-100) is None
        await store.set_chat(ChatOverride(-100, Scope(("a",)), 1, "Ann", 10.0))
        await store.set_chat(ChatOverride(-100, Scope(("b", "c")), 2, "Bob", 20.0))
        await store.set_chat(ChatOverride(7, None, 1, "", 15.0))
        assert await store.chat_override(-100) == ChatOverride(
            -100, Scope(("b", "c")), 2, "Bob", 20.0
        )
        assert [o.chat_id for o in await store.chat_overrides()] == [-100, 7]
        assert (await store.chat_override(7)) == ChatOverride(7, None, 1, "", 15.0)
        assert await store.clear_chat(-100)
        assert not await store.clear_chat(-100)
        assert await store.chat_override(-100) is None

    async def test_a_topic_has_its_own_beside_its_group(self, store: ScopeStore) -> None:
        await store.set_chat(ChatOverride(-100, Scope(("all",)), 1, "Ann", 10.0))
        await store.set_chat(ChatOverride(-100, Scope(("hr",)), 2, "Bob", 20.0, thread_id=7))
        await store.set_chat(ChatOverride(-100, Scope(("it",)), 2, "Bob", 30.0, thread_id=7))
        assert await store.chat_override(-100, 7) == ChatOverride(
            -100, Scope(("it",)), 2, "Bob", 30.0, thread_id=7
        )
        assert await store.chat_override(-100, 8) is None
        assert (await store.chat_override(-100)) == ChatOverride(
            -100, Scope(("all",)), 1, "Ann", 10.0
        )
        listed = [(o.chat_id, o.thread_id) for o in await store.chat_overrides()]
        assert listed == [(-100, 7), (-100, None)]
        assert await store.clear_chat(-100, 7)
        assert not await store.clear_chat(-100, 7)
        assert await store.chat_override(-100, 7) is None
        assert await store.chat_override(-100) is not None  # the group's own is kept


class TestConversationScopes:
    async def test_swap_returns_the_scope_before(self, store: ScopeStore) -> None:
        assert await store.swap_conversation_scope("c", None) is None
        assert await store.swap_conversation_scope("c", None) is None  # nothing written
        assert await store.swap_conversation_scope("c", Scope(("a",))) is None
        assert await store.swap_conversation_scope("c", None) == '["a"]'
        assert await store.swap_conversation_scope("c", None) == '["*"]'

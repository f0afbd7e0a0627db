"""The facts about an update worked out once: the sender's scope is read when a handler needs
it, once per update, and never for updates that do not."""

from __future__ import annotations

from bot.settings.scopes import Scopes
from bot.storage.scopes import ChatOverride, ScopeStore
from tests.bot.access_support import button_data, tap, texts_to
from tests.bot.test_documents import _QUESTION_ID, CHARLOTTE, _ask
from tests.fakes.accounts import ADMIN_ID, USER_ID
from tests.fakes.harness import Harness
from tools.jail.scope import Scope


class CountedStore:
    """The bot's own scope store, counting how often a chat's scope is read from it."""

    def __init__(self, store: ScopeStore) -> None:
        self.store = store
        self.reads = 0

    async def chat_override(
        self, chat_id: int, thread_id: int | None = None
    ) -> ChatOverride | None:
        self.reads += 1
        return await self.store.chat_override(chat_id, thread_id)

    async def chat_overrides(self) -> list[ChatOverride]:
        return await self.store.chat_overrides()

    async def set_chat(self, override: ChatOverride) -> None:
        await self.store.set_chat(override)

    async def clear_chat(self, chat_id: int, thread_id: int | None = None) -> bool:
        return await self.store.clear_chat(chat_id, thread_id)

    async def swap_conversation_scope(self, conversation: str, scope: Scope | None) -> str | None:
        return await self.store.swap_conversation_scope(conversation, scope)

    async def close(self) -> None:
        await self.store.close()


def _counted(harness: Harness) -> CountedStore:
    scopes: Scopes = harness.dp.workflow_data["scopes"]
    counted = CountedStore(scopes.store)
    scopes.store = counted
    return counted


class TestTheScope:
    async def test_updates_that_need_no_scope_never_read_it(self, harness: Harness) -> None:
        counted = _counted(harness)
        for command in ("/help", "/reset", "/users"):
            await harness.feed(harness.updates.command(command, user_id=ADMIN_ID))
        assert len(texts_to(harness, ADMIN_ID)) == 3
        assert counted.reads == 0

    async def test_a_question_reads_it_once(self, harness: Harness) -> None:
        counted = _counted(harness)
        harness.llm.reply_text("Шарлотка в папке документы.")
        await harness.feed(harness.updates.message("где рецепт шарлотки?", user_id=USER_ID))
        assert texts_to(harness, USER_ID)[-1] == "Шарлотка в папке документы."
        assert counted.reads == 1

    async def test_a_command_and_its_confirming_tap_read_it_once_each(
        self, harness: Harness
    ) -> None:
        counted = _counted(harness)
        question = await _ask(harness, f"/rm {CHARLOTTE}")
        assert counted.reads == 1
        await tap(harness, question, _QUESTION_ID, button_data(question)[0], ADMIN_ID)
        assert not (harness.settings.sandbox_dir / CHARLOTTE).exists()
        assert counted.reads == 2

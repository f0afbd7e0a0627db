"""Which budgets a question counts against, on the SQLite usage store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.settings.budgets import Budgets, parse_limits
from bot.storage.usage.sqlite import SqliteUsage
from tests.fakes.clock import FakeClock

LIMITS = """
[defaults]
user_day = 1000
chat_day = 50

[chats.9]
day = 70
"""


@pytest.fixture
async def budgets(tmp_path: Path) -> AsyncIterator[Budgets]:
    store = SqliteUsage(tmp_path / "usage.sqlite3", clock=FakeClock(1_000_000.0))
    try:
        yield Budgets(parse_limits(LIMITS), store, clock=FakeClock(1_000_000.0))
    finally:
        await store.close()


class TestAllowances:
    def test_a_groups_question_counts_against_the_person_and_the_group(
        self, budgets: Budgets
    ) -> None:
        found = budgets.allowances(7, -100, is_admin=False)
        assert {(a.who, a.id, a.tokens) for a in found} == {("user", 7, 1000), ("chat", -100, 50)}

    def test_a_private_chat_is_not_held_to_the_groups_default(self, budgets: Budgets) -> None:
        found = budgets.allowances(7, 7, is_admin=False)
        assert {(a.who, a.id, a.tokens) for a in found} == {("user", 7, 1000)}

    def test_a_private_chat_listed_itself_is(self, budgets: Budgets) -> None:
        found = budgets.allowances(9, 9, is_admin=False)
        assert ("chat", 9, 70) in {(a.who, a.id, a.tokens) for a in found}

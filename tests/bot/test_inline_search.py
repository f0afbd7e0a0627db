"""What `InlineSearch` keeps: per user, words and scope, for a while, a bounded number of them.

A real Toolbox over the test documents folder; what is "made" of each search is counted, so a
kept answer is one that was not made again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.telegram.inline_search import FoundDocument, InlineSearch
from tests.fakes.clock import FakeClock
from tools import Toolbox
from tools.jail.scope import Scope

HR = Scope.of(["hr"])


async def _settled(toolbox: Toolbox, **options: Any) -> InlineSearch[list[str]]:
    """An `InlineSearch` over `toolbox` once its start-up rescan is over: a rescan replaces
    the folder's snapshot, which drops what was kept."""
    await toolbox.wait_synced()
    return InlineSearch(toolbox, **options)


class Maker:
    """Makes the paths of what was found, and counts how often it was asked to."""

    def __init__(self) -> None:
        self.made = 0

    async def __call__(self, found: Sequence[FoundDocument]) -> list[str]:
        self.made += 1
        return [document.path for document in found]


class TestKept:
    async def test_the_same_user_words_and_scope_are_made_once(self, toolbox: Toolbox) -> None:
        search = await _settled(toolbox)
        make = Maker()
        first = await search.kept(1, "отпуск", None, make)
        assert "hr/отпуск.md" in first
        assert await search.kept(1, " отпуск  ", None, make) == first
        assert make.made == 1
        await search.kept(2, "отпуск", None, make)
        await search.kept(1, "отпуск", HR, make)
        assert make.made == 3

    async def test_a_scope_is_searched_within(self, toolbox: Toolbox) -> None:
        search = await _settled(toolbox)
        assert await search.kept(1, "аренда", Scope.of(["документы"]), Maker()) == [
            "документы/договор_аренды.md"
        ]

    async def test_what_is_kept_expires(self, toolbox: Toolbox) -> None:
        clock = FakeClock()
        search = await _settled(toolbox, ttl_s=60.0, clock=clock)
        make = Maker()
        await search.kept(1, "отпуск", None, make)
        clock.advance(59)
        await search.kept(1, "отпуск", None, make)
        assert make.made == 1
        clock.advance(2)
        await search.kept(1, "отпуск", None, make)
        assert make.made == 2

    async def test_the_oldest_goes_first_beyond_capacity(self, toolbox: Toolbox) -> None:
        search = await _settled(toolbox, capacity=2)
        make = Maker()
        for words in ("отпуск", "аренда", "отпуск", "vpn"):
            await search.kept(1, words, None, make)
        assert make.made == 3  # "отпуск" was used again, so "аренда" went out
        await search.kept(1, "отпуск", None, make)
        assert make.made == 3
        await search.kept(1, "аренда", None, make)
        assert make.made == 4

    async def test_words_that_are_no_words_find_nothing(self, toolbox: Toolbox) -> None:
        search = await _settled(toolbox)
        assert await search.search("?!", None) == []
        assert await search.search("   ", None) == []

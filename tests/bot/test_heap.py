"""What start-up built is set aside from the cycle collector while the bot runs, and handed back
when it stops."""

from __future__ import annotations

import gc

from tests.fakes.fixtures import DispatcherFactory


async def test_the_started_heap_is_frozen_until_shutdown(
    make_dispatcher: DispatcherFactory,
) -> None:
    assert gc.get_freeze_count() == 0
    async with make_dispatcher(freeze_heap=True):
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


async def test_tests_leave_the_heap_alone_unless_asked(make_dispatcher: DispatcherFactory) -> None:
    async with make_dispatcher():
        assert gc.get_freeze_count() == 0

"""What start-up built is set aside from the cycle collector while the bot runs, and handed back
when it stops."""

from __future__ import annotations

import gc

from tests.fakes.fixtures import DispatcherFactory


async def test_the_started_heap_is_frozen_until_shutdown(
    make_dispatcher: DispatcherFactory,
) -> None:
    suites = gc.get_freeze_count()  # what the test process itself set aside (tests/conftest.py)
    gc.unfreeze()
    try:
        async with make_dispatcher(freeze_heap=True):
            assert gc.get_freeze_count() > 0
        assert gc.get_freeze_count() == 0
    finally:
        if suites:
            gc.freeze()


async def test_tests_leave_the_heap_alone_unless_asked(make_dispatcher: DispatcherFactory) -> None:
    before = gc.get_freeze_count()
    async with make_dispatcher():
        assert gc.get_freeze_count() <= before  # frozen objects may still be freed

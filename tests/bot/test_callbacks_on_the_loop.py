"""Every handler and filter the bot registers is a coroutine.

aiogram runs a synchronous callback (a bare `F.text` filter among them) in a worker thread:
a thread hand-off for each such filter of each update, which under a burst of questions costs
more CPU than the check itself. `Matches(F.…)` keeps magic filters on the loop.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.dispatcher.event.handler import CallableObject

from tests.fakes.fixtures import DispatcherFactory


def _callbacks(router: Router) -> list[tuple[str, CallableObject]]:
    """(where, callback) for every handler and filter of `router` and the routers below it."""
    found: list[tuple[str, CallableObject]] = []
    for name, observer in router.observers.items():
        where = f"{router.name}.{name}"
        found += [(f"{where} router filter", f) for f in observer._handler.filters or ()]
        for handler in observer.handlers:
            named = f"{where} handler {handler.callback!r}"
            found.append((named, handler))
            found += [(f"{named}: a filter", f) for f in handler.filters or ()]
    for child in router.sub_routers:
        found += _callbacks(child)
    return found


async def test_no_handler_or_filter_runs_in_a_thread(make_dispatcher: DispatcherFactory) -> None:
    async with make_dispatcher() as harness:
        callbacks = _callbacks(harness.dp)

    assert len(callbacks) > 50, "the walk should reach every router"
    in_threads = [where for where, callback in callbacks if not callback.awaitable]
    assert in_threads == []

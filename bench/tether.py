"""Processes a benchmark starts die with it, and what it started is stopped when it is killed.

A benchmark leaves servers behind when it is killed halfway (PostgreSQL, a bot and its
workers): the kernel's parent-death signal (`PR_SET_PDEATHSIG`, Linux) ties each child to the
process that started it, and `on_stop` runs a clean-up before SIGTERM or SIGINT take their
usual course.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from collections.abc import Callable
from types import FrameType
from typing import Any

_PR_SET_PDEATHSIG = 1
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
_LIBC = ctypes.CDLL(None, use_errno=True)
_cleanups: dict[int, Callable[[], None]] = {}
_previous: dict[int, Any] = {}


def die_with_parent(signum: int) -> None:
    """The calling process gets `signum` when the thread that started it ends.

    If that parent died while this was being set, the signal is sent at once.
    Outside Linux nothing happens: the runner's timeouts still hold there.
    """
    parent = os.getppid()
    _set_parent_death_signal(signum)
    if os.getppid() != parent:
        os.kill(os.getpid(), signum)


def child_dying_with_us(signum: int, cores: frozenset[int] | None = None) -> Callable[[], None]:
    """A `preexec_fn` for `subprocess.Popen`: the child gets `signum` when we die.

    It runs in the child after `user=` took effect (a change of user would clear the setting),
    and pins the child to `cores` when given (its own children inherit them).
    """
    us = os.getpid()

    def preexec() -> None:
        _set_parent_death_signal(signum)
        if os.getppid() != us:  # we died between the fork and the prctl
            os.kill(os.getpid(), signum)
        if cores:
            os.sched_setaffinity(0, cores)

    return preexec


def _set_parent_death_signal(signum: int) -> None:
    with contextlib.suppress(AttributeError):  # not Linux: the runner's timeouts still hold
        _LIBC.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)


def on_stop(key: int, cleanup: Callable[[], None]) -> None:
    """Run `cleanup` when SIGTERM or SIGINT arrives, then let the signal do what it did before.

    Each `key` holds one clean-up; `forget(key)` drops it once done, and the last one gone puts
    the earlier handlers back.
    """
    if not _cleanups:
        for signum in _STOP_SIGNALS:
            _previous[signum] = signal.getsignal(signum)
            signal.signal(signum, _on_signal)
    _cleanups[key] = cleanup


def forget(key: int) -> None:
    """No clean-up for `key` any more (it was done the ordinary way)."""
    _cleanups.pop(key, None)
    if _cleanups or not _previous:
        return
    for signum, handler in _previous.items():
        if signal.getsignal(signum) is _on_signal:
            signal.signal(signum, handler)
    _previous.clear()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    for key, cleanup in list(_cleanups.items()):
        cleanup()
        forget(key)
    previous = signal.getsignal(signum)
    if previous is _on_signal:  # forget() left ours in place: nothing was registered before
        previous = signal.SIG_DFL
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_DFL:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

"""Timing knobs of the Telegram layer, with production defaults; tests shorten them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Tuning:
    """How the bot paces itself towards Telegram and how long it waits at shutdown.

    `edit_interval_s`: least time between status edits in one chat (Telegram allows ~1/s).
    `typing_interval_s`: how often the typing action is renewed (it fades after ~5 s).
    `retry_wait_cap_s`: most time one answer may spend waiting out flood control.
    `shutdown_grace_s`: how long running questions may finish after SIGTERM.
    `max_waiting_per_chat`: messages queued behind a running answer before more are refused.
    `notify_after_s`: answers that took longer arrive as a new message, which notifies the
    user (an edit of the status message would not).
    `paste_window_s`: how long a long message waits for the rest of a paste Telegram split.
    `album_window_s`: how long an album's pictures wait for the next picture of the album.
    `progress_settle_s`: how long a status or typing call already on its way may take to land
    before the answer goes out (so it cannot land after it); a hung call is cut after this.
    `page_answer_s`: how long a page button's tap waits for the page's picture before it is
    answered: a page that is not there is then a pop-up; a slower picture is announced and
    followed.
    `sleep`, `clock`: how delivery waits and how answering times itself (tests replace them).
    `wall_clock`: Unix time, for what must hold across restarts and processes: pairing codes,
    lockouts, access requests and grants (tests move it instead of waiting).
    """

    edit_interval_s: float = 1.0
    typing_interval_s: float = 4.0
    retry_wait_cap_s: float = 60.0
    shutdown_grace_s: float = 8.0
    max_waiting_per_chat: int = 10
    notify_after_s: float = 10.0
    paste_window_s: float = 1.5
    album_window_s: float = 1.0
    progress_settle_s: float = 2.0
    page_answer_s: float = 1.5
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    wall_clock: Callable[[], float] = time.time

"""Keeping the cycle collector off what start-up built.

After start-up the process holds a large, long-lived heap (the settings, aiogram's and openai's
models, the services and their caches). Every full collection walks all of it again; under a
burst of chats those walks cost a tenth of each question's CPU. Freezing the heap once the bot
has started leaves the collector only what questions allocate. Objects freed by their reference
count are still freed; only cycles among start-up's own objects wait for `thaw`.
"""

from __future__ import annotations

import gc
import logging

log = logging.getLogger(__name__)


def freeze() -> None:
    """Collect what start-up left as garbage, then move everything alive out of the
    collector's sight."""
    gc.collect()
    gc.freeze()
    log.debug("%d start-up objects set aside from the cycle collector", gc.get_freeze_count())


def thaw() -> None:
    """Give the start-up heap back to the collector (at shutdown, so a process that starts the
    bot again, as tests do, does not keep it frozen for good)."""
    gc.unfreeze()

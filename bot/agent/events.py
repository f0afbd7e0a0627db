"""Delivering progress events to the caller's handler without letting it break a question."""

from __future__ import annotations

import logging

from bot.agent.types import AgentEvent, EventHandler

logger = logging.getLogger(__name__)


async def emit(handler: EventHandler | None, event: AgentEvent) -> None:
    """Call the handler; its failure is logged and never ends the question."""
    if handler is None:
        return
    try:
        await handler(event)
    except Exception:  # progress display is cosmetic: a broken handler must not cost the answer
        logger.exception("event handler failed on %s", type(event).__name__)

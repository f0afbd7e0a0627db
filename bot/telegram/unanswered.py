"""After an answer: keep its question when the documents had nothing for it, for `/gaps` and
the digest. A store that fails costs a log line, never the asker's answer."""

from __future__ import annotations

import logging

from bot.agent.types import Answer
from bot.digests.gaps.rule import unanswered_reason
from bot.storage.unanswered import UnansweredLog
from bot.telegram.context import ChatContext

log = logging.getLogger(__name__)


async def note_unanswered(
    store: UnansweredLog,
    question: str,
    answer: Answer,
    *,
    chat_context: ChatContext,
    user_id: int | None,
) -> None:
    """Mark `question` in `store` when `answer` shows the documents could not answer it."""
    reason = unanswered_reason(question, answer)
    if reason is None:
        return
    try:
        await store.mark(
            question,
            chat_id=chat_context.place.chat_id,
            user_id=user_id,
            conversation=chat_context.conversation,
            language=chat_context.language,
            reason=reason,
            files=answer.sources,
        )
    except Exception as exc:  # any store's failure: the answer still goes out
        log.warning("an unanswered question was not kept: %s", exc)

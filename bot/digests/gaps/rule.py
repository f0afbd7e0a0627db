"""Whether an answer leaves its question unanswered: the documents had nothing for it.

Three signs, any one enough: the answer was labelled not from the documents; it searched and
every search found nothing; or no document was read at all, for a question that was not small
talk (a greeting needs no document). A 👎 "not in the documents" marks a question too, but that
comes later, from its asker, through the store's `mark`.
"""

from __future__ import annotations

from bot.agent.small_talk import is_small_talk
from bot.agent.types import Answer
from bot.storage.unanswered import Reason


def unanswered_reason(question: str, answer: Answer) -> Reason | None:
    """Why `question` counts as unanswered after `answer`; None when the documents answered."""
    if answer.not_from_documents:
        return "not_from_documents"
    if answer.searches_found_nothing:
        return "nothing_found"
    if not answer.sources and not is_small_talk(question):
        return "no_documents"
    return None

"""Whether a question is small talk (a greeting, thanks, a question about the bot itself), so an
answer without any document read is not labelled "not from the documents" for it.

The rule is deliberately narrow and needs no model: a short message (at most six words) made
only of greeting, thanks, acknowledgement and about-the-bot words, in Russian or English, or
one of a few fixed questions about the bot. Anything else that was answered without reading a
document gets the label: a false label costs a glance, a missing one hides an invented answer.
"""

from __future__ import annotations

import re

MAX_WORDS = 6

_WORDS = frozenset(
    " ".join(
        (
            "  привет приветик здравствуй здравствуйте здорово добрый доброе доброй день утро",
            "вечер ночи хай хей салют пока до свидания спасибо спс благодарю большое огромное",
            "пожалуйста ок окей хорошо понятно ясно отлично супер класс круто ага угу да нет",
            "ладно норм понял поняла как дела ты кто такой такая что умеешь можешь бот помощь",
            "помоги помощник меня зовут очень тебе вам всем hi hello hey hiya yo good morning",
            "afternoon evening night bye goodbye thanks thank you thx ty cheers ok okay great",
            "cool nice got it yes no sure fine who are what can do help bot how is going the",
            "a an there all lot much so very",
        )
    ).split()
)
_PHRASES = (
    "что ты умеешь",
    "что ты можешь",
    "кто ты",
    "как тобой пользоваться",
    "как с тобой работать",
    "что ты такое",
    "what can you do",
    "who are you",
    "how do i use you",
    "how does this bot work",
    "what are you",
)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def is_small_talk(question: str) -> bool:
    """True for a greeting, thanks, an acknowledgement or a question about the bot."""
    folded = question.casefold().replace("ё", "е")
    words = _WORD.findall(folded)
    if any(phrase in " ".join(words) for phrase in _PHRASES) and len(words) <= MAX_WORDS + 2:
        return True
    return 0 < len(words) <= MAX_WORDS and all(word in _WORDS for word in words)

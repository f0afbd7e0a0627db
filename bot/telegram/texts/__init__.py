"""Every text the bot says, in Russian and English, chosen by the user's Telegram language.

`model` is the shape of one language's texts, `ru` and `en` fill it; `scope` holds the texts of
/scope, `feedback` those of the 👍/👎 buttons and /feedback, `gaps` those of /gaps and the
digest of unanswered questions, `experts` those of "Ask an expert", `admin_app` the admins' Mini
App's, `inline` those of search from any chat and its cards, `usage` those of budgets and
/usage, `notices` those of /subscribe and the change digests, `sources` those of /sources
and the question about a held-back mass deletion; `numbers` writes numbers in words
(plurals, thousands), `names` shows names from the documents folder and `people` users' names
and moments, each safely in HTML.
"""

from __future__ import annotations

from bot.telegram.texts.en import ENGLISH
from bot.telegram.texts.model import Texts
from bot.telegram.texts.ru import RUSSIAN

__all__ = ["ENGLISH", "RUSSIAN", "RUSSIAN_READERS", "Texts", "language_of", "texts_for"]

# Languages whose users get Russian replies and the Russian command menu; everyone else,
# Ukrainian users included, gets English.
RUSSIAN_READERS = ("ru", "be", "kk")


def language_of(language_code: str | None) -> str:
    """`ru` for Russian, Belarusian and Kazakh users, else `en`."""
    if language_code and language_code.lower().split("-")[0] in RUSSIAN_READERS:
        return "ru"
    return "en"


def texts_for(language_code: str | None) -> Texts:
    """The texts for a user's Telegram `language_code`."""
    return RUSSIAN if language_of(language_code) == "ru" else ENGLISH

"""The texts of search from any chat (`@bot words`) and of the cards it posts, in Russian and
English.

Kept apart from the main `Texts` because only this feature uses them. Button texts are plain
(Telegram shows them as typed); the card and the replies in the private chat are HTML, and
every name, folder and snippet in them comes from the documents folder, so it is escaped and
its hidden characters are written out.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from bot.agent.quotes.marks import ENGLISH_WORDS, RUSSIAN_WORDS, QuoteWords, place_words
from bot.telegram.texts import language_of
from bot.telegram.texts.names import visible
from tools.extract.places import parse_place

ROOT_FOLDER = "/"
"""How a document at the top of the documents folder shows its folder."""


@dataclass(frozen=True, slots=True)
class InlineTexts:
    """One language's texts for inline search and its cards."""

    lang: str
    words: QuoteWords
    type_words: str
    """The button over an empty query: what to type."""
    nothing_found: str
    """The button when nothing matched: ask the bot in the private chat instead."""
    request_access: str
    """The button a stranger gets instead of results."""
    failed: str
    """The button when the search could not be answered (the link store failed)."""
    no_snippet: str
    """A description when the match is in the name, with no line of text to show."""
    get_file: str
    """The card's button that opens the private chat and sends the file there."""
    link_expired: str
    link_no_access: str
    link_gone: str

    def place(self, text: str | None) -> str:
        """A snippet's place ("page 12") in the reader's words ("с. 12"); empty when none. A
        sheet's or a heading's name has its hidden characters written out."""
        found = parse_place(text) if text else None
        return visible(place_words(found, self.words)) if found is not None else ""

    def description(self, folder: str, snippet: str, place: str) -> str:
        """An inline result's second line: the folder, the place, the matching snippet."""
        where = folder or ROOT_FOLDER
        head = f"{where} · {place}" if place else where
        return f"{head}\n{snippet or self.no_snippet}"

    def card(self, name: str, folder: str, snippet: str, place: str) -> str:
        """The short message a chosen result posts (HTML): never the document itself."""
        lines = [f"📄 <b>{_shown(name)}</b>", f"🗂 {_shown(folder or ROOT_FOLDER)}"]
        if snippet:
            lines.append(f"<i>{_shown(snippet)}</i>")
        if place:
            lines.append(f"📍 {escape(place)}")
        return "\n".join(lines)


def _shown(text: str) -> str:
    return escape(visible(text))


RUSSIAN_INLINE = InlineTexts(
    lang="ru",
    words=RUSSIAN_WORDS,
    type_words="Напишите слова для поиска по документам",
    nothing_found="Ничего не нашлось — спросить бота в личном чате",
    request_access="Запросить доступ",
    failed="⚠️ Поиск не удался — попробуйте ещё раз",
    no_snippet="совпадение в названии",
    get_file="📄 Получить файл в личном чате",
    link_expired=(
        "Ссылка на документ устарела или неизвестна. Найдите его снова: напишите "
        "@{username} и слова в любом чате."
    ),
    link_no_access="🔒 Этот документ вам недоступен.",
    link_gone="Этого файла больше нет в папке с документами.",
)
ENGLISH_INLINE = InlineTexts(
    lang="en",
    words=ENGLISH_WORDS,
    type_words="Type words to search the documents",
    nothing_found="Nothing found — ask the bot in a private chat",
    request_access="Request access",
    failed="⚠️ The search failed — please try again",
    no_snippet="the name matches",
    get_file="📄 Get the file in a private chat",
    link_expired=(
        "This document link has expired or is unknown. Find it again: type @{username} and a "
        "few words in any chat."
    ),
    link_no_access="🔒 This document is not available to you.",
    link_gone="This file is no longer in the documents folder.",
)


def inline_texts(language_code: str | None) -> InlineTexts:
    """The inline texts for a user's Telegram `language_code`, as the main texts choose."""
    return RUSSIAN_INLINE if language_of(language_code) == "ru" else ENGLISH_INLINE

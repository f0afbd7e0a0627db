"""An answer's quotes marked for the reader: a verified quote followed by where it is, one not
found marked so that it can never pass for a real one.

The marks are Markdown written into the model's own Markdown, so every front door shows them
the way it shows the answer (Telegram's blockquote, the terminal's plain text). The words are
the caller's, in the reader's language (`QuoteWords`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from bot.agent.quotes.verify import QuoteCheck
from tools.extract.places import Place, numbered

WARNING = "⚠️"
MAX_PAGES_NAMED = 6
SECTION_LEVELS = " › "
"""Between a section's parent heading and its own, as the reader sees them."""


@dataclass(frozen=True, slots=True)
class QuoteWords:
    """One language's words for the marks. `{n}` is a number, `{name}` a sheet's name or a
    section's headings."""

    not_found: str
    page: str
    pages: str
    sheet: str
    slide: str
    chapter: str
    heading: str


RUSSIAN_WORDS = QuoteWords(
    not_found="цитата не найдена в прочитанных документах",
    page="с. {n}",
    pages="с. {n}",
    sheet="лист «{name}»",
    slide="слайд {n}",
    chapter="глава {n}",
    heading="раздел «{name}»",
)
ENGLISH_WORDS = QuoteWords(
    not_found="quote not found in the documents read",
    page="p. {n}",
    pages="p. {n}",
    sheet="sheet “{name}”",
    slide="slide {n}",
    chapter="chapter {n}",
    heading="section “{name}”",
)
"""The two languages' words, for every front door (the terminal speaks English)."""


def place_words(place: Place, words: QuoteWords) -> str:
    """A place as the reader's language says it: "§ 4.2 Отпуск, с. 12", "лист «Бюджет»",
    "раздел «Справочник › Больничный»"."""
    marker = place.marker
    shown = [section_words(place, words), marker_words(marker, words) if marker else ""]
    return ", ".join(part for part in shown if part)


def section_words(place: Place, words: QuoteWords) -> str:
    """The headings a place lies under, as the reader sees them: "§ 4.2 Отпуск" when the
    innermost is numbered, else its name (after its parent's) as a section; "" for none."""
    shown = place.shown_section
    if not shown:
        return ""
    joined = SECTION_LEVELS.join(shown)
    if numbered(shown[0]):
        return joined if joined.startswith("§") else f"§ {joined}"
    return words.heading.format(name=joined)


def marker_words(place: Place, words: QuoteWords) -> str:
    """A page, sheet, slide or chapter as the reader's language says it: "p. 12"."""
    if place.kind == "page":
        return words.page.format(n=place.number)
    if place.kind == "slide":
        return words.slide.format(n=place.number)
    if place.kind == "chapter":
        chapter = words.chapter.format(n=place.number)
        return f"{chapter} «{place.name}»" if place.name else chapter
    if place.kind == "sheet":
        return words.sheet.format(name=place.name)
    return ""


def pages_words(pages: Iterable[int], words: QuoteWords) -> str:
    """Pages as one short list: "с. 3, 12" (at most `MAX_PAGES_NAMED`, then "…")."""
    ordered = sorted(set(pages))
    shown = ", ".join(str(n) for n in ordered[:MAX_PAGES_NAMED])
    if len(ordered) > MAX_PAGES_NAMED:
        shown += ", …"
    return words.pages.format(n=shown)


def marked(answer: str, checks: Sequence[QuoteCheck], words: QuoteWords) -> str:
    """The answer with each checked quote followed by its place, or marked as not found."""
    out = answer
    for check in sorted(checks, key=lambda c: c.start, reverse=True):
        quote = out[check.start : check.end].rstrip("\n")
        rest = out[check.start + len(quote) :]
        if check.found:
            where = _where(check, words)
            if where is None:
                continue
            out = f"{out[: check.start]}{quote}\n>\n> — {where}{rest}"
        else:
            flagged = _flag(quote)
            note = f"_{WARNING} {words.not_found}_"
            out = f"{out[: check.start]}{flagged}\n\n{note}{_paragraph_after(rest)}"
    return out


def _where(check: QuoteCheck, words: QuoteWords) -> str | None:
    """ "`Правила.pdf`, с. 12": the file by its name, then the place when there is one."""
    if check.path is None:
        return None
    name = PurePosixPath(check.path).name.replace("`", "'")
    where = f"`{name}`"
    if check.place is not None:
        where += ", " + markdown_text(place_words(check.place, words))
    return where


def _flag(quote: str) -> str:
    """The warning sign after the first `>` of the quote, where it is seen first."""
    head, sep, tail = quote.partition(">")
    return f"{head}{sep} {WARNING}{tail}" if sep else f"{WARNING} {quote}"


def _paragraph_after(rest: str) -> str:
    """What followed the quote, kept a paragraph of its own after the note."""
    if not rest:
        return ""
    stripped = rest.lstrip("\n")
    return "\n\n" + stripped if stripped else ""


def markdown_text(text: str) -> str:
    """Markdown's own characters in a sheet's or heading's name shown as they are."""
    return "".join("\\" + c if c in "\\`*_[]<>|#" else c for c in text)


def pages_by_source(checks: Sequence[QuoteCheck]) -> Mapping[str, tuple[int, ...]]:
    """The pages each file was quoted from, in order: what the page buttons offer."""
    pages: dict[str, list[int]] = {}
    for check in checks:
        if check.found and check.path is not None and check.place is not None:
            page = check.place.page
            if page is not None and page not in pages.setdefault(check.path, []):
                pages[check.path].append(page)
    return {path: tuple(found) for path, found in pages.items()}


def sections_named(sources: Sequence[str], quotes: Sequence[QuoteCheck]) -> dict[str, Place]:
    """Per source, the place of its first found quote that lies in a section: what a sources
    line names beside the file, before its pages."""
    named: dict[str, Place] = {}
    for check in quotes:
        place, path = check.place, check.path
        if check.found and path is not None and path in sources and place and place.section:
            named.setdefault(path, place)
    return named


def pages_named(
    sources: Sequence[str],
    quotes: Sequence[QuoteCheck],
    read: Mapping[str, Sequence[int]],
) -> dict[str, tuple[int, ...]]:
    """Per source with pages, the pages its quotes were found on first, then the other pages
    read: what a sources line names beside each file."""
    quoted = pages_by_source(quotes)
    named = {
        path: tuple(dict.fromkeys([*quoted.get(path, ()), *read.get(path, ())]))
        for path in sources
    }
    return {path: pages for path, pages in named.items() if pages}

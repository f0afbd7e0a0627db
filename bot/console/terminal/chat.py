"""`python -m bot chat`: the terminal front door, the same agent over stdin and stdout.

For admins trying the bot without Telegram. It builds on the shared services only: nothing here
imports aiogram. The answer is printed as the model writes it, each piece once; text the model
takes back (it was thinking aloud before looking something up) is marked as such, and the
finished answer is not printed again.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from collections.abc import Awaitable, Callable, Mapping

from bot.agent import (
    Agent,
    AgentError,
    AgentEvent,
    Answer,
    AnswerDraft,
    AnswerReady,
    ToolFinished,
    ToolStarted,
)
from bot.agent.quotes.marks import (
    ENGLISH_WORDS,
    pages_named,
    pages_words,
    place_words,
    section_words,
    sections_named,
)
from bot.agent.quotes.verify import QuoteCheck
from bot.services import close_services, open_services
from bot.settings.model import Settings

_PROMPT = "› "
_HELP = "Ask a question. /reset starts a new conversation, /exit (or Ctrl-D) quits."
_ARGUMENTS_SHOWN = 120
_TAKEN_BACK = "  ↩ (the text above was not the answer; it was taken back)"
_QUOTE_SHOWN = 70
_WORDS = ENGLISH_WORDS
_FAILED = {
    "unavailable": "the model server is down, too slow, or failed on the request",
    "stream_cut": "the answer broke off mid-stream",
    "auth": "the model server refused the key or does not know the model",
    "rate_limited": "the model server is rate-limiting; try again in a minute",
    "bad_reply": "the model server's reply could not be used",
    "too_long": "the conversation does not fit the model's window; /reset starts anew",
}
"""What the reader is told of a failed question, by `AgentError.kind`: one short line. What
the server said (a validation dump may run to hundreds of characters) is in the agent's log
line, which the terminal shows with LOG_LEVEL=DEBUG."""


class _Typed:
    """The answer as it streams: only what is new is printed, on lines of its own."""

    def __init__(self, put: Callable[[str], None] | None, write: Callable[[str], None]) -> None:
        self._put = put
        self._write = write
        self.printed = ""

    def draft(self, text: str) -> None:
        """Print what `text` adds; when it is not a continuation, mark the old text and restart."""
        if self._put is None:
            return
        if not text.startswith(self.printed):
            self.break_line()
            self._write(_TAKEN_BACK)
        self._put(text[len(self.printed) :])
        self.printed = text

    def break_line(self) -> None:
        """End the line of streamed text (before a progress line or an error)."""
        if self.printed and self._put is not None:
            self._put("\n")
        self.printed = ""

    def finish(self, answer: str) -> None:
        """Print the rest of the answer, or the whole of it when it did not stream."""
        if self.printed and self._put is not None and answer.startswith(self.printed):
            self._put(answer[len(self.printed) :] + "\n")
            self.printed = ""
            return
        if self.printed:
            self.break_line()
            self._write(_TAKEN_BACK)
        self._write(answer)


async def chat_in_terminal(
    agent: Agent,
    *,
    conversation: str = "terminal",
    read_line: Callable[[], Awaitable[str | None]],
    write: Callable[[str], None],
    put: Callable[[str], None] | None = None,
) -> None:
    """Read questions until `/exit` or end of input; print progress, answers and sources.

    `write` prints a line; `put`, when given, prints text as it is (no line end), and the
    answer is then printed as the model writes it.
    """
    typed = _Typed(put, write)

    async def show(event: AgentEvent) -> None:
        if isinstance(event, AnswerDraft):
            typed.draft(event.text)
            return
        if isinstance(event, AnswerReady):
            return  # printed when `ask` returns, with what it adds to the streamed text
        typed.break_line()
        if isinstance(event, ToolStarted):
            arguments = json.dumps(dict(event.arguments), ensure_ascii=False)
            write(f"  … {event.name} {arguments[:_ARGUMENTS_SHOWN]}")
        elif isinstance(event, ToolFinished):
            if event.error:
                write(f"  ✗ {event.name} (error: {event.error}, {event.duration_s:.2f}s)")
            else:
                write(f"  ✓ {event.name} ({event.result_chars} chars, {event.duration_s:.2f}s)")

    write(_HELP)
    while True:
        line = await read_line()
        if line is None:
            return
        question = line.strip()
        if not question:
            continue
        command = question.lower()
        if command in ("/exit", "/quit"):
            return
        if command == "/reset":
            await agent.reset(conversation)
            write("New conversation started.")
            continue
        if command in ("/help", "/start"):
            write(_HELP)
            continue
        try:
            answer = await agent.ask(conversation, question, on_event=show)
        except AgentError as exc:
            typed.break_line()
            failed = _FAILED.get(exc.kind, "the question could not be answered")
            write(f"! {exc.kind}: {failed} (details: LOG_LEVEL=DEBUG)")
            continue
        typed.finish(answer.text)
        _after_answer(answer, write)
        notes = _notes(answer)
        write("(" + "; ".join(notes) + ")")


async def _line_reader() -> Callable[[], Awaitable[str | None]]:
    """Where questions come from: a terminal, a pipe or a socket through the event loop; any
    other stdin (a file, /dev/null, which the event loop cannot watch) through a thread; no
    stdin at all is an end of input at once."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # no stdin (None), or its file is closed
        return _no_input
    if sys.stdin.isatty() or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return await _pipe_reader()
    return _file_reader()


async def _no_input() -> str | None:
    return None


async def _pipe_reader() -> Callable[[], Awaitable[str | None]]:
    """Reads lines without a blocking thread, so Ctrl-C never waits for Enter."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    interactive = sys.stdin.isatty()  # asked once: at end of input the transport closes stdin
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    async def read_line() -> str | None:
        if interactive:
            _write_prompt()
        line = await reader.readline()
        return line.decode(errors="replace") if line else None

    return read_line


def _file_reader() -> Callable[[], Awaitable[str | None]]:
    """Reads a file or a device given as stdin (only pipes can use a pipe transport)."""

    async def read_line() -> str | None:
        line = await asyncio.to_thread(sys.stdin.readline)
        return line or None

    return read_line


def _write_prompt() -> None:
    sys.stdout.write(_PROMPT)
    sys.stdout.flush()


def _write(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _put(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


async def serve(settings: Settings) -> int:
    """Chat with the agent over this terminal until /exit or end of input."""
    services = await open_services(settings)
    try:
        read_line = await _line_reader()
        await chat_in_terminal(
            services.agent, conversation="terminal", read_line=read_line, write=_write, put=_put
        )
    finally:
        await close_services(services)
    return 0


def _after_answer(answer: Answer, write: Callable[[str], None]) -> None:
    """The quotes' marks, the "not from the documents" note and the sources line."""
    for line in _quote_lines(answer.quotes):
        write(line)
    if answer.not_from_documents:
        write("ℹ️ Not from the documents: no document was read for this answer.")
    if answer.sources:
        write("Sources: " + _sources(answer.sources, answer.pages, answer.quotes))


def _notes(answer: Answer) -> list[str]:
    """What the line after an answer says of it: cut short or off, written by a fallback,
    and what it cost."""
    notes = []
    if answer.cut_short:
        notes.append("the search was cut short by the round limit")
    if answer.truncated:
        notes.append("the answer was cut at the output limit")
    if answer.handover is not None:
        notes.append(
            f"the answer broke off; the fallback model {answer.handover.model} wrote the rest"
        )
    elif answer.fallback_model is not None:
        notes.append(f"answered by the fallback model {answer.fallback_model}")
    usage = answer.usage
    notes.append(
        f"{usage.rounds} round(s), {'~' if usage.estimated else ''}"
        f"{usage.prompt_tokens}+{usage.completion_tokens} tokens, "
        f"{usage.elapsed_s:.1f}s"
    )
    return notes


def _quote_lines(quotes: tuple[QuoteCheck, ...]) -> list[str]:
    """One line per quote under the streamed answer: where it is, or that it was not found."""
    lines = []
    for quote in quotes:
        text = " ".join(quote.text.split())
        if len(text) > _QUOTE_SHOWN:
            text = text[: _QUOTE_SHOWN - 1] + "…"
        if not quote.found:
            lines.append(f"  ⚠️ «{text}» — {_WORDS.not_found}")
            continue
        where = quote.path or ""
        if quote.place is not None:
            where += ", " + place_words(quote.place, _WORDS)
        lines.append(f"  ✓ «{text}» — {where}")
    return lines


def _sources(
    sources: tuple[str, ...], pages: Mapping[str, tuple[int, ...]], quotes: tuple[QuoteCheck, ...]
) -> str:
    """The files read, each with the section quoted and the pages quoted or read from it."""
    named = pages_named(sources, quotes, pages)
    sections = sections_named(sources, quotes)
    shown = []
    for path in sources:
        places = [section_words(sections[path], _WORDS)] if path in sections else []
        if path in named:
            places.append(pages_words(named[path], _WORDS))
        shown.append(", ".join([path, *places]))
    return ("; " if named or sections else ", ").join(shown)

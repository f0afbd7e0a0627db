"""A chat with the agent in a terminal, for admins trying the bot without Telegram."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from bot.agent.loop import Agent
from bot.agent.types import AgentError, AgentEvent, AnswerReady, ToolFinished, ToolStarted

_HELP = "Ask a question. /reset starts a new conversation, /exit (or Ctrl-D) quits."
_ARGUMENTS_SHOWN = 120


async def chat_in_terminal(
    agent: Agent,
    *,
    conversation: str = "terminal",
    read_line: Callable[[], Awaitable[str | None]],
    write: Callable[[str], None],
) -> None:
    """Read questions until `/exit` or end of input; print progress, answers and sources."""

    async def show(event: AgentEvent) -> None:
        if isinstance(event, ToolStarted):
            arguments = json.dumps(dict(event.arguments), ensure_ascii=False)
            write(f"  … {event.name} {arguments[:_ARGUMENTS_SHOWN]}")
        elif isinstance(event, ToolFinished):
            outcome = f"error: {event.error}" if event.error else f"{event.result_chars} chars"
            write(f"  ✓ {event.name} ({outcome}, {event.duration_s:.2f}s)")
        elif isinstance(event, AnswerReady):
            return

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
            write(f"! {exc.kind}: {exc}")
            continue
        write(answer.text)
        if answer.sources:
            write("Sources: " + ", ".join(answer.sources))
        notes = []
        if answer.cut_short:
            notes.append("the search was cut short by the round limit")
        if answer.truncated:
            notes.append("the answer was cut at the output limit")
        usage = answer.usage
        notes.append(
            f"{usage.rounds} round(s), {usage.prompt_tokens}+{usage.completion_tokens} tokens, "
            f"{usage.elapsed_s:.1f}s"
        )
        write("(" + "; ".join(notes) + ")")

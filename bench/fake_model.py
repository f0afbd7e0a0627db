"""A fake OpenAI-compatible model for the benchmarks, run in its own process.

It plays a fixed three-round script for every question — `search_files`, then `read_file` on the
first path the search returned, then an answer — so any number of chats can run at once without
a queue. `--delay` adds latency per call (a slow model); `--usage` reports the prompt tokens it
counts with o200k (when the offline tokenizer is installed) so the agent can calibrate.
`--answer N` skips the tools and answers every question at once with N characters of Markdown
prose; `--stream-chars` and `--stream-delay` shape a streamed reply (characters a piece, seconds
between pieces: 4 and 0.02 are about 50 tokens a second).

It reuses the test suite's fake server (`tests.fakes.fake_llm`): same HTTP shape, real SDK.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bench.tokenizer import reference_counter
from tests.fakes.fake_llm import FakeLLM, Reply, text_reply, tool_calls_reply

FALLBACK_PATH = "Кухня/рецепт_шарлотки.txt"
ANSWER = "Шарлотка: сахар - 1 стакан, яйца - 3 штуки, мука - 1 стакан. Источник: {path}."


def _current_turn(messages: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=0)
    return messages[last_user:]


def _first_path(tool_message: Mapping[str, Any]) -> str:
    try:
        results = json.loads(str(tool_message.get("content") or "{}")).get("results") or []
    except (ValueError, AttributeError):
        return FALLBACK_PATH
    return str(results[0]["path"]) if results else FALLBACK_PATH


def _query_of(question: str) -> str:
    """The question's keywords: the part after a colon if there is one, else the whole text."""
    return question.rpartition(":")[2].strip(" ?.!") or question


@dataclass
class Script:
    """The three-round script and its counters."""

    delay_s: float
    count_tokens: Callable[[dict[str, Any]], int] | None
    ids: itertools.count[int]
    requests: int = 0
    answer_chars: int = 0

    def reply(self, body: dict[str, Any]) -> Reply:
        """The next step of the script for this request."""
        self.requests += 1
        messages = list(body.get("messages") or [])
        turn = _current_turn(messages)
        results = [m for m in turn if m.get("role") == "tool"]
        usage = None
        if self.count_tokens is not None:
            usage = (self.count_tokens(body), 40)
        prefix = f"c{next(self.ids)}"
        if self.answer_chars:
            reply = text_reply(prose(self.answer_chars), usage=usage)
        elif not body.get("tools") or len(results) >= 2:
            path = _first_path(results[-1]) if results else FALLBACK_PATH
            reply = text_reply(ANSWER.format(path=path), usage=usage)
        elif not results:
            query = _query_of(str(turn[0].get("content") or "")) if turn else "шарлотка"
            reply = tool_calls_reply(
                ("search_files", {"query": query}), usage=usage, id_prefix=prefix
            )
        else:
            path = _first_path(results[-1])
            reply = tool_calls_reply(("read_file", {"path": path}), usage=usage, id_prefix=prefix)
        if self.delay_s:
            return Reply(reply.status, reply.body, reply.content_type, delay_s=self.delay_s)
        return reply


async def playing(script: Script) -> FakeLLM:
    """A fake model server on 127.0.0.1, started, that answers every request from `script`."""
    server = FakeLLM()

    async def responder(body: dict[str, Any]) -> Reply:
        return script.reply(body)

    server.responder = responder
    await server.start()
    return server


def prose(chars: int) -> str:
    """About `chars` characters of answer-like Markdown: paragraphs, bold, code, a list."""
    sentences = [
        "Для шарлотки нужен **один стакан сахара** и три яйца.",
        "Муку просейте и добавьте к взбитым яйцам, перемешивая `лопаткой`.",
        "- яблоки нарежьте дольками;\n- форму смажьте маслом.",
        "Выпекайте сорок минут при 180 °C, пока верх не зарумянится.",
    ]
    out: list[str] = []
    while sum(len(s) + 2 for s in out) < chars:
        out.append(sentences[len(out) % len(sentences)])
    return "\n\n".join(out)[:chars].rstrip()


async def serve(
    delay_s: float,
    usage: bool,
    *,
    answer_chars: int = 0,
    stream_chars: int = 8,
    stream_delay_s: float = 0.0,
) -> None:
    """Serve until SIGTERM or stdin closes; print the base URL first, the count last."""
    count = reference_counter() if usage else None
    script = Script(delay_s, count.request if count else None, itertools.count(1))
    script.answer_chars = answer_chars
    server = await playing(script)
    server.streaming.content_chars = stream_chars
    server.streaming.delay_s = stream_delay_s
    print(server.base_url, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_reader(sys.stdin.fileno(), lambda: stop.set() if not sys.stdin.read(1) else None)
    await stop.wait()
    await server.close()
    print(f"requests {script.requests}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.fake_model [--delay S] [--usage] [--answer N] [--stream-chars N]
    [--stream-delay S]`."""
    parser = argparse.ArgumentParser(prog="python -m bench.fake_model")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--usage", action="store_true")
    parser.add_argument("--answer", type=int, default=0)
    parser.add_argument("--stream-chars", type=int, default=8)
    parser.add_argument("--stream-delay", type=float, default=0.0)
    args = parser.parse_args(argv)
    answer = {"answer_chars": args.answer}
    stream = {"stream_chars": args.stream_chars, "stream_delay_s": args.stream_delay}
    asyncio.run(serve(args.delay, args.usage, **answer, **stream))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The start of every request is the same bytes, whoever asks, wherever, whatever came before.

Model servers discount a prompt prefix they have seen: the system prompt and the tool specs
must not change with the chat, its scope, the user's language or how long the conversation
has grown. Through the whole bot: a long conversation in a small window (so turns are left
out) in one chat, a scoped group in another, an English and a Russian speaker.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.agent.prompts import OMITTED_TURNS_NOTE
from tests.bot.source_support import CHARLOTTE, GROUP_ID
from tests.fakes.accounts import ADMIN_ID, BOT_USERNAME, USER_ID
from tests.fakes.harness import Harness
from tests.fakes.updates import mention_entity

WINDOW = 4_096
OUTPUT = 1_024


def _start(request: dict[str, Any]) -> str:
    """What a server sees first, as bytes it could cache: the tools, then the system prompt."""
    return json.dumps([request["tools"], request["messages"][0]], ensure_ascii=False)


def _script_reading(harness: Harness, n: int) -> None:
    harness.llm.reply_tool_calls(("search_files", {"query": "шарлотка"}))
    harness.llm.reply_tool_calls(("read_file", {"path": CHARLOTTE}))
    harness.llm.reply_text(f"Ответ {n}: сахар - 1 стакан. " + "Подробности рецепта. " * 30)


def _group_question(harness: Harness, text: str) -> Any:
    full = f"@{BOT_USERNAME} {text}"
    return harness.updates.message(
        full,
        user_id=USER_ID,
        chat_id=GROUP_ID,
        chat_type="supergroup",
        language_code="ru",
        entities=[mention_entity(full, f"@{BOT_USERNAME}")],
    )


class TestTheRequestStart:
    async def test_two_chats_send_the_same_start_bytes(
        self, make_dispatcher: Any, tmp_path: Path
    ) -> None:
        scopes = tmp_path / "scopes.toml"
        scopes.write_text(f'{GROUP_ID} = ["документы"]\n', encoding="utf-8")
        settings = {"context_window": WINDOW, "max_output_tokens": OUTPUT, "stream": "off"}
        async with make_dispatcher(scopes_file=scopes, **settings) as harness:
            for n in range(10):
                _script_reading(harness, n)
                await harness.feed(
                    harness.updates.message(
                        f"Question {n}: how much sugar?", user_id=ADMIN_ID, language_code="en"
                    )
                )
            long_chat = list(harness.llm.requests)
            _script_reading(harness, 10)
            await harness.feed(_group_question(harness, "сколько сахара в шарлотке?"))
            assert harness.llm.pending == 0
            group = harness.llm.requests[len(long_chat) :]

        assert len(group) == 3
        starts = {_start(request) for request in [*long_chat, *group]}
        assert len(starts) == 1, "the system prompt or the tools changed between requests"
        left_out = {"role": "system", "content": OMITTED_TURNS_NOTE}
        assert left_out in long_chat[-1]["messages"], "the long chat was never trimmed"

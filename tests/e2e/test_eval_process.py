"""`python -m bot eval` as a real process: the shipped example file passes against a model that
reads the cited file and answers from it, and Ctrl-C leaves a state file a rerun goes on from."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import tomllib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tests.fakes.fake_llm import FakeLLM, Reply, text_reply, tool_calls_reply
from tests.fakes.processes import START_S, bot_env, run_python, start_python

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "sandbox" / ".eval.example.toml"
API_KEY = "sk-eval-secret-key-24680"
_NUMBERED = re.compile(r"^\s*\d+\| ?")


def _cited() -> dict[str, str]:
    """Each question of the example and the first file it should cite."""
    data = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    return {q["question"]: q["cite"][0] for q in data["questions"]}


def _question(request: dict[str, Any]) -> str:
    return str(next(m for m in request["messages"] if m["role"] == "user")["content"])


def _document(request: dict[str, Any]) -> list[str]:
    """The lines of the document the model was shown (the read_file result), unnumbered."""
    result = next(m for m in request["messages"] if m["role"] == "tool")
    shown = json.loads(result["content"])["document"].splitlines()[1:-1]
    return [_NUMBERED.sub("", line) for line in shown if _NUMBERED.match(line)]


Answering = Callable[[dict[str, Any]], Awaitable[Reply]]


def reader_of(cited: dict[str, str]) -> Answering:
    """A model that reads the file a question is about, then answers with what it says,
    quoting its longest line: right whenever the facts are in the documents."""

    async def respond(request: dict[str, Any]) -> Reply:
        if not any(m["role"] == "tool" for m in request["messages"]):
            return tool_calls_reply(("read_file", {"path": cited[_question(request)]}))
        lines = [line for line in _document(request) if line.strip()]
        quote = max(lines, key=len)
        return text_reply(f"> {quote}\n\n" + "\n".join(lines))

    return respond


def _env(tmp_path: Path, fake_llm: FakeLLM) -> dict[str, str]:
    return bot_env(
        OPENAI_BASE_URL=fake_llm.base_url,
        OPENAI_API_KEY=API_KEY,
        SANDBOX_DIR=str(REPO / "sandbox"),
        DATA_DIR=str(tmp_path / "data"),
        MODEL_MAX_RETRIES="0",
        REQUEST_TIMEOUT="30",
    )


class TestEvalProcess:
    async def test_the_example_file_passes_against_a_model_that_answers_from_the_documents(
        self, tmp_path: Path, fake_llm: FakeLLM
    ) -> None:
        fake_llm.responder = reader_of(_cited())
        result = tmp_path / "result.json"
        report = tmp_path / "report.md"

        code, out, err = await run_python(
            "-m",
            "bot",
            "eval",
            str(EXAMPLE),
            "--min-accuracy",
            "1",
            "--json",
            str(result),
            "--report",
            str(report),
            env=_env(tmp_path, fake_llm),
            cwd=tmp_path,
            within_s=120,
        )

        assert code == 0, out + err
        assert "Traceback" not in err
        assert API_KEY not in out + err
        (summary,) = [line for line in out.splitlines() if "% (" in line]
        assert "100% (6/6)" in summary
        assert " 6/0 " in summary, "every quote found in the documents read"
        (model,) = json.loads(result.read_text(encoding="utf-8"))["models"]
        assert model["cited_right"] == 1.0
        assert model["passed"] == 6
        assert "| gpt-4.1-mini | 100% (6/6) | 100% |" in report.read_text(encoding="utf-8")
        assert err == "", "no progress bar and no log lines when standard error is no terminal"
        assert len(fake_llm.requests) == 12

    async def test_ctrl_c_leaves_whole_results_and_a_rerun_goes_on_from_them(
        self, tmp_path: Path, fake_llm: FakeLLM
    ) -> None:
        cited = _cited()
        second = list(cited)[1]
        answering = reader_of(cited)

        async def stuck_on_the_second(request: dict[str, Any]) -> Reply:
            if _question(request) == second:
                return Reply(hang=True)
            return await answering(request)

        fake_llm.responder = stuck_on_the_second
        state = tmp_path / "state.jsonl"
        argv = ("-m", "bot", "eval", str(EXAMPLE), "--parallel", "1", "--resume", str(state))
        process = await start_python(*argv, env=_env(tmp_path, fake_llm), cwd=tmp_path)
        try:
            await fake_llm.wait_for_requests(3, within_s=START_S)  # the first answered, then stuck
            process.send_signal(signal.SIGINT)
            out, err = await asyncio.wait_for(process.communicate(), START_S)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()

        assert process.returncode == 130, err.decode()
        assert b"Traceback" not in err
        assert f"stopped: 1 of 6 results kept; --resume {state}".encode() in err
        assert out == b""
        kept = [json.loads(line) for line in state.read_text(encoding="utf-8").splitlines()]
        assert [line["number"] for line in kept] == [1]
        assert state.read_bytes().endswith(b"\n")

        fake_llm.responder = answering
        before = len(fake_llm.requests)
        code, out_text, rerun_err = await run_python(
            *argv, "--min-accuracy", "1", env=_env(tmp_path, fake_llm), cwd=tmp_path
        )
        assert code == 0, rerun_err
        again = {_question(r) for r in fake_llm.requests[before:]}
        assert again == set(list(cited)[1:]), "the first question is not asked again"
        assert "100% (6/6)" in out_text
        numbers = [json.loads(line)["number"] for line in state.read_text().splitlines()]
        assert sorted(numbers) == [1, 2, 3, 4, 5, 6]

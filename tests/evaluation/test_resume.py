"""`--resume`: results kept as they come, a rerun asks only what is not done."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.console.evaluation.run import serve
from bot.settings.model import Settings
from tests.evaluation.conftest import models_server, question_of, right
from tests.fakes.fake_llm import FakeLLM, Reply, error_reply


async def _run(
    settings: Settings, questions_file: Path, state: Path, *, min_accuracy: float | None = None
) -> int:
    return await serve(
        settings,
        questions_file=str(questions_file),
        resume=str(state),
        min_accuracy=min_accuracy,
    )


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class TestResume:
    async def test_a_rerun_with_the_same_file_asks_nothing_done(
        self,
        fake_llm: FakeLLM,
        eval_settings: Settings,
        questions_file: Path,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        fake_llm.responder = models_server(right=right)
        state = tmp_path / "state.jsonl"

        assert await _run(eval_settings, questions_file, state) == 0
        first = capsys.readouterr().out
        asked = len(fake_llm.requests)
        assert asked == 6
        assert sorted(line["number"] for line in _lines(state)) == [1, 2, 3]

        assert await _run(eval_settings, questions_file, state, min_accuracy=1.0) == 0
        assert len(fake_llm.requests) == asked, "nothing asked again"
        assert capsys.readouterr().out == first
        assert len(_lines(state)) == 3

    async def test_questions_the_server_failed_are_asked_again(
        self,
        fake_llm: FakeLLM,
        eval_settings: Settings,
        questions_file: Path,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        async def down_for_the_lease(request: dict[str, Any]) -> Reply:
            if "аренды" in question_of(request):
                return error_reply(500)
            return await right(request)

        fake_llm.responder = models_server(right=down_for_the_lease)
        state = tmp_path / "state.jsonl"
        await _run(eval_settings, questions_file, state)
        assert "67% (2/3)" in capsys.readouterr().out
        before = len(fake_llm.requests)

        fake_llm.responder = models_server(right=right)
        assert await _run(eval_settings, questions_file, state, min_accuracy=1.0) == 0

        again = fake_llm.requests[before:]
        assert {question_of(r) for r in again} == {"Какой срок аренды офиса?"}
        assert "100% (3/3)" in capsys.readouterr().out
        lease = [line for line in _lines(state) if line["number"] == 3]
        assert [line["error"] is None for line in lease] == [False, True], "the later line wins"

    async def test_a_line_cut_off_by_a_crash_is_dropped_and_the_file_stays_whole(
        self,
        fake_llm: FakeLLM,
        eval_settings: Settings,
        questions_file: Path,
        tmp_path: Path,
    ) -> None:
        fake_llm.responder = models_server(right=right)
        state = tmp_path / "state.jsonl"
        await _run(eval_settings, questions_file, state)
        whole = state.read_text(encoding="utf-8")
        lines = whole.splitlines(keepends=True)
        cut = json.loads(lines[2])["question"]
        state.write_text("".join(lines[:2]) + lines[2][:40], encoding="utf-8")
        before = len(fake_llm.requests)

        assert await _run(eval_settings, questions_file, state, min_accuracy=1.0) == 0

        again = fake_llm.requests[before:]
        assert {question_of(r) for r in again} == {cut}, "only the question cut off"
        assert sorted(line["number"] for line in _lines(state)) == [1, 2, 3]

    async def test_a_last_line_of_something_else_is_not_cut_off(
        self,
        fake_llm: FakeLLM,
        eval_settings: Settings,
        questions_file: Path,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        state = tmp_path / "notes.txt"
        state.write_text("my notes", encoding="utf-8")
        code = await serve(eval_settings, questions_file=str(questions_file), resume=str(state))
        assert code == 2
        assert "notes.txt: line 1 is not a result of this command" in capsys.readouterr().err
        assert state.read_text(encoding="utf-8") == "my notes"
        assert fake_llm.requests == []

    async def test_a_file_that_is_not_a_state_file_is_refused(
        self,
        fake_llm: FakeLLM,
        eval_settings: Settings,
        questions_file: Path,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        state = tmp_path / "notes.txt"
        state.write_text("my notes\n", encoding="utf-8")
        code = await serve(eval_settings, questions_file=str(questions_file), resume=str(state))
        assert code == 2
        assert "notes.txt: line 1 is not a result of this command" in capsys.readouterr().err
        assert state.read_text(encoding="utf-8") == "my notes\n", "nothing lost"
        assert fake_llm.requests == []

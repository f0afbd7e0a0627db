"""`eval` against the fake model server: right, wrong and failing models, the table, the JSON,
the Markdown report and the exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.console.evaluation.run import serve
from bot.settings.model import Settings
from tests.evaluation.conftest import broken, models_server, read_json, right, wrong
from tests.fakes.fake_llm import FakeLLM


class TestModels:
    async def test_right_wrong_and_failing_models_each_get_their_verdicts(
        self,
        fake_llm: FakeLLM,
        eval_settings: Settings,
        questions_file: Path,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        fake_llm.responder = models_server(right=right, wrong=wrong, broken=broken)
        result_file = tmp_path / "result.json"

        code = await serve(
            eval_settings,
            questions_file=str(questions_file),
            models=["right", "wrong", "broken"],
            json_file=str(result_file),
            price_in=2.0,
            price_out=8.0,
        )

        assert code == 0
        result = read_json(result_file)
        by_model = {m["model"]: m for m in result["models"]}
        assert list(by_model) == ["right", "wrong", "broken"]
        assert by_model["right"]["accuracy"] == 1.0
        assert by_model["right"]["cited_right"] == 1.0
        assert by_model["right"]["quotes_found"] == 3
        assert by_model["right"]["quotes_invented"] == 0
        assert by_model["right"]["rounds"] == 6
        assert by_model["right"]["first_token_p50"] is not None
        assert by_model["wrong"]["accuracy"] == 0.0
        assert by_model["wrong"]["cited_right"] == 0.0
        assert by_model["wrong"]["quotes_invented"] == 3
        assert by_model["broken"]["accuracy"] == 0.0
        assert by_model["broken"]["failed_to_answer"] == 3
        assert by_model["broken"]["cited_right"] == 0.0
        questions = {(q["model"], q["number"]): q for q in result["questions"]}
        assert len(questions) == 9
        sugar_wrong = questions["wrong", 1]
        assert sugar_wrong["missing"] == ["re:\\b1\\s+стакан"]
        assert sugar_wrong["forbidden"] == ["2 стакана"]
        assert questions["wrong", 3]["missing"] == ["11 месяцев", "одиннадцать месяцев"]
        assert questions["right", 2]["sources"] == ["hr/отпуск.md"]
        assert questions["broken", 2]["error"].startswith("unavailable: ")
        for model in ("right", "wrong"):
            tokens = [q for key, q in questions.items() if key[0] == model]
            prompt = sum(q["prompt_tokens"] for q in tokens)
            completion = sum(q["completion_tokens"] for q in tokens)
            assert prompt > 0
            assert by_model[model]["prompt_tokens"] == prompt
            assert by_model[model]["cost"] == pytest.approx((prompt * 2 + completion * 8) / 1e6)
        asked = {(r["model"], r["messages"][1]["content"]) for r in fake_llm.requests}
        assert len(asked) == 9, "every model was asked every question"

        table = capsys.readouterr().out
        lines = table.splitlines()
        assert any(line.split()[:3] == ["right", "1", "pass"] for line in lines)
        (wrong_sugar,) = [line for line in lines if line.split()[:3] == ["wrong", "1", "FAIL"]]
        assert "missing 're:\\b1\\s+стакан'" in wrong_sugar
        assert "has '2 стакана'" in wrong_sugar
        (broken_line,) = [line for line in lines if line.split()[:2] == ["broken", "3"]]
        assert broken_line.split()[2:4] == ["FAIL", "unavailable:"]
        assert "HTTP 500" in broken_line
        (right_summary,) = [line for line in lines if line.startswith("right ") and "%" in line]
        assert "100% (3/3)" in right_summary
        assert " 3/0 " in right_summary
        (wrong_summary,) = [line for line in lines if line.startswith("wrong ") and "%" in line]
        assert "0% (0/3)" in wrong_summary
        assert " 0/3 " in wrong_summary

    async def test_each_question_is_a_new_conversation(
        self,
        fake_llm: FakeLLM,
        eval_settings: Settings,
        questions_file: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        fake_llm.responder = models_server(right=right)

        assert await serve(eval_settings, questions_file=str(questions_file), parallel=1) == 0

        for request in fake_llm.requests:
            users = [m for m in request["messages"] if m["role"] == "user"]
            assert len(users) == 1, "no other question's turn in the conversation"
        assert "100% (3/3)" in capsys.readouterr().out

    async def test_the_configured_model_is_asked_without_model_options(
        self, fake_llm: FakeLLM, eval_settings: Settings, questions_file: Path
    ) -> None:
        fake_llm.responder = models_server(right=right)
        await serve(eval_settings, questions_file=str(questions_file))
        assert {r["model"] for r in fake_llm.requests} == {"right"}


class TestMinAccuracy:
    async def test_under_the_minimum_exits_1_and_names_the_model(
        self,
        fake_llm: FakeLLM,
        eval_settings: Settings,
        questions_file: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        fake_llm.responder = models_server(right=right, wrong=wrong)
        code = await serve(
            eval_settings,
            questions_file=str(questions_file),
            models=["right", "wrong"],
            min_accuracy=0.5,
        )
        assert code == 1
        err = capsys.readouterr().err
        assert "wrong: accuracy 0% is under --min-accuracy 0.5" in err
        assert "right:" not in err

    async def test_at_the_minimum_exits_0(
        self, fake_llm: FakeLLM, eval_settings: Settings, questions_file: Path
    ) -> None:
        fake_llm.responder = models_server(right=right)
        code = await serve(eval_settings, questions_file=str(questions_file), min_accuracy=1.0)
        assert code == 0


class TestReports:
    async def test_the_markdown_report_compares_models_and_shows_failed_answers(
        self, fake_llm: FakeLLM, eval_settings: Settings, questions_file: Path, tmp_path: Path
    ) -> None:
        fake_llm.responder = models_server(right=right, wrong=wrong)
        report = tmp_path / "report.md"
        await serve(
            eval_settings,
            questions_file=str(questions_file),
            models=["right", "wrong"],
            report_file=str(report),
        )
        text = report.read_text(encoding="utf-8")
        assert "## Models" in text
        assert "| right | 100% (3/3) | 100% |" in text
        assert "| wrong | 0% (0/3) | 0% |" in text
        assert "| wrong | 1 | Сколько сахара в шарлотке? | ❌ fail |" in text
        assert "### wrong, question 1: Сколько сахара в шарлотке?" in text
        assert "> > сахар - 2 стакана" in text

    async def test_json_to_standard_output_replaces_the_table(
        self,
        fake_llm: FakeLLM,
        eval_settings: Settings,
        questions_file: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        fake_llm.responder = models_server(right=right)
        await serve(eval_settings, questions_file=str(questions_file), json_file="-")
        document = json.loads(capsys.readouterr().out)
        assert document["models"][0]["passed"] == 3

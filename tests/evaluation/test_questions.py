"""The file of questions: what a bad one is told, and how facts are matched."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.console.evaluation.grading import contains, grade
from bot.console.evaluation.questions import Question
from bot.console.evaluation.run import serve
from bot.settings.model import Settings
from tests.fakes.fake_llm import FakeLLM


async def _refused(
    text: str | bytes, settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> str:
    path = tmp_path / "bad.toml"
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    code = await serve(settings, questions_file=str(path))
    assert code == 2
    return capsys.readouterr().err


class TestBadFile:
    async def test_each_problem_is_named_with_its_question_and_field(
        self,
        fake_llm: FakeLLM,
        eval_settings: Settings,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        err = await _refused(
            '[[questions]]\nquestion = "a"\nmust = ["x"]\n'
            '[[questions]]\nquestion = "b"\nmust = ["y", \'re:(\']\nmust_mode = "some"\n'
            '[[questions]]\nmust = []\nshould = "z"\n',
            eval_settings,
            tmp_path,
            capsys,
        )
        lines = err.strip().splitlines()
        where = str(tmp_path / "bad.toml")
        regex = "'re:(' is not a regular expression"
        assert lines[0].startswith(f"{where}: question 2, field 'must', item 2: {regex}")
        assert lines[1].startswith(f"{where}: question 2, field 'must_mode': Input should be")
        assert f"{where}: question 3, field 'question': Field required" in lines
        empty = f"{where}: question 3, field 'must': List should"
        assert any(line.startswith(empty) for line in lines)
        assert f"{where}: question 3, field 'should': Extra inputs are not permitted" in lines
        assert len(lines) == 5
        assert "Traceback" not in err
        assert fake_llm.requests == [], "nothing is asked"

    async def test_broken_toml_names_the_line(
        self,
        eval_settings: Settings,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        err = await _refused(
            '[[questions]]\nquestion = "a\nmust = []\n', eval_settings, tmp_path, capsys
        )
        assert "bad.toml: is not valid TOML:" in err
        assert "line 2" in err

    async def test_a_file_without_questions_says_how_to_add_them(
        self, eval_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        err = await _refused("# nothing yet\n", eval_settings, tmp_path, capsys)
        assert "field 'questions'" in err
        assert "[[questions]]" in err

    async def test_text_that_is_not_utf8_and_a_missing_file(
        self, eval_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        err = await _refused("question = 'ё'".encode("cp1251"), eval_settings, tmp_path, capsys)
        assert "bad.toml: is not UTF-8 text" in err
        code = await serve(eval_settings, questions_file=str(tmp_path / "none.toml"))
        assert code == 2
        assert "none.toml: cannot be read: No such file or directory" in capsys.readouterr().err


class TestMatching:
    def test_plain_facts_ignore_case_and_runs_of_spaces(self) -> None:
        assert contains("Нужен 1\u00a0СТАКАН\n сахара", "1 стакан")
        assert not contains("Нужен 1 стакан", "2 стакана")

    def test_regular_expressions_ignore_case(self) -> None:
        assert contains("Срок — Одиннадцать месяцев", "re:одиннадцать\\s+месяц")
        assert not contains("Срок — 12 месяцев", "re:\\b11\\b")

    def test_any_needs_one_fact_and_all_needs_every_one(self) -> None:
        every = Question(question="?", must=["28", "дней"])
        some = Question(question="?", must=["28", "дней"], must_mode="any")
        assert grade(every, "28 суток", ()).missing == ("дней",)
        assert grade(some, "28 суток", ()).passed
        assert grade(some, "месяц", ()).missing == ("28", "дней")

    def test_a_forbidden_fact_fails_an_answer_that_has_every_fact_it_must(self) -> None:
        question = Question(question="?", must=["1 стакан"], must_not=["2 стакана"])
        checked = grade(question, "1 стакан, а лучше 2 стакана", ())
        assert checked.missing == ()
        assert checked.forbidden == ("2 стакана",)
        assert not checked.passed

    def test_citing_needs_every_file_among_those_read(self) -> None:
        question = Question(question="?", must=["x"], cite=["./hr/отпуск.md", "a.txt"])
        assert grade(question, "x", ("hr/отпуск.md", "a.txt", "b.txt")).cited_right is True
        assert grade(question, "x", ("hr/отпуск.md",)).cited_right is False
        assert grade(Question(question="?", must=["x"]), "x", ()).cited_right is None

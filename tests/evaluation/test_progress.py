"""The progress bar: drawn on a terminal, silent anywhere else."""

from __future__ import annotations

import io

from bot.console.evaluation.progress import ProgressBar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class TestProgressBar:
    def test_a_terminal_sees_questions_done_of_the_total(self) -> None:
        screen = Terminal()
        bar = ProgressBar(6, screen, done=2)
        bar.describe("gpt-test")
        bar.advance(passed=True)
        shown = screen.getvalue()
        bar.close()
        assert "gpt-test" in shown
        assert "3/6" in shown
        assert "passed=1" in shown

    def test_nothing_is_written_where_it_is_not_a_terminal(self) -> None:
        log = io.StringIO()
        bar = ProgressBar(6, log)
        bar.describe("gpt-test")
        bar.advance(passed=False)
        bar.close()
        assert log.getvalue() == ""

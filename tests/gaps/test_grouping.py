"""Unanswered questions grouped by the word most of them share, and when digests are due."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.digests.gaps.grouping import group_gaps
from bot.digests.gaps.schedule import due_at
from bot.storage.unanswered import UnansweredQuestion
from tools.index.terms import Stemmer


def asked(question: str, at: float) -> UnansweredQuestion:
    return UnansweredQuestion(question, 1, 1, "chat:1", "ru", "nothing_found", at)


class TestGrouping:
    def test_forms_of_one_word_meet_and_question_words_do_not(self) -> None:
        questions = [
            asked("Сколько дней отпуска положено?", 1.0),
            asked("Как оформить отпуск летом?", 3.0),
            asked("Можно ли взять отпуском полдня?", 2.0),
            asked("Сколько стоит парковка?", 4.0),
            asked("Где пропуск?", 5.0),
        ]
        gaps = group_gaps(questions, Stemmer())
        assert [(g.word, g.count, g.last_asked) for g in gaps] == [
            ("отпуск", 3, 3.0),
            ("пропуск", 1, 5.0),
            ("стоит", 1, 4.0),
        ]
        assert gaps[0].examples == (
            "Как оформить отпуск летом?",
            "Можно ли взять отпуском полдня?",
        )

    def test_each_question_is_in_one_group_and_the_counts_add_up(self) -> None:
        questions = [
            asked("договор аренды офиса", 1.0),
            asked("аренда склада", 2.0),
            asked("договор поставки", 3.0),
            asked("???", 4.0),
        ]
        gaps = group_gaps(questions, Stemmer())
        assert sum(g.count for g in gaps) == 4
        assert gaps[0].count == 2 and gaps[1].count == 1


class TestDue:
    def test_weekly_is_monday_morning_and_daily_every_morning(self) -> None:
        sunday = datetime(2025, 6, 15, 15, 6, tzinfo=UTC).timestamp()
        weekly = due_at(sunday, "weekly")
        daily = due_at(sunday, "daily")
        assert weekly is not None and daily is not None
        assert datetime.fromtimestamp(weekly, UTC) == datetime(2025, 6, 9, 9, 0, tzinfo=UTC)
        assert datetime.fromtimestamp(daily, UTC) == datetime(2025, 6, 15, 9, 0, tzinfo=UTC)
        assert due_at(weekly, "weekly") == weekly
        assert due_at(sunday, "off") is None

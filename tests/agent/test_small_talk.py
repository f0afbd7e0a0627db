"""Small talk is told apart from questions, so only real questions get "not from the documents"."""

from __future__ import annotations

import pytest

from bot.agent.small_talk import is_small_talk


@pytest.mark.parametrize(
    "text",
    [
        "Привет!",
        "Здравствуйте",
        "Добрый день",
        "спасибо большое",
        "Спасибо тебе!",
        "ок 👍",
        "Понятно, спасибо",
        "Кто ты?",
        "Что ты умеешь?",
        "Hi there",
        "thanks a lot!",
        "What can you do?",
        "Who are you",
    ],
)
def test_greetings_thanks_and_questions_about_the_bot_are_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize(
    "text",
    [
        "Сколько дней отпуска положено?",
        "Как оформить командировку",
        "Добрый день, сколько стоит обед в столовой?",
        "Спасибо, а кто согласует отпуск?",
        "how many vacation days do I get",
        "Привет, где лежит регламент закупок?",
        "",
        "2025",
    ],
)
def test_questions_are_not_small_talk(text: str) -> None:
    assert not is_small_talk(text)

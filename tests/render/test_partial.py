"""A growing answer's settled beginning: open constructs wait, shown text is never taken back."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.telegram.render import render_answer, settled
from tests.fakes.telegram_html import read_html
from tests.render.test_properties import documents


def shown(markdown: str) -> str:
    """What a user reads for `markdown`, parts joined."""
    return "\n".join(read_html(part.html).text for part in render_answer(markdown))


def squeezed(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize(
    ("growing", "expected"),
    [
        ("Нужен **1 стакан", "Нужен "),
        ("Нужен **1 стакан**", "Нужен **1 стакан**"),
        ("Нужен **1 стакан*", "Нужен "),
        ("Нужен *немного", "Нужен "),
        ("Нужен ~~лишний", "Нужен "),
        ("Команда `pip inst", "Команда "),
        ("Команда `pip install`", "Команда "),
        ("Команда `pip install` и", "Команда `pip install` и"),
        ("Команда ``a`", "Команда "),
        ("См. [рецепт](https://exa", "См. "),
        ("См. [рецепт]", "См. "),
        ("См. [рецепт", "См. "),
        ("См. [рецепт](https://example.com) и", "См. [рецепт](https://example.com) и"),
        ("Картинка !", "Картинка "),
        ("Ссылка <https://exa", "Ссылка "),
        ("R&am", "R"),
        ("R&amp; D", "R&amp; D"),
        ("конец \\", "конец "),
        ("5 * 3 = 15", "5 * 3 = 15"),
        ("snake_case_name", "snake_case_name"),
        ("текст *", "текст "),
    ],
)
def test_inline_constructs_wait_until_they_close(growing: str, expected: str) -> None:
    assert settled(growing) == expected


@pytest.mark.parametrize(
    ("growing", "expected"),
    [
        ("```python\nprint(1)\npri", "```python\nprint(1)\npri"),
        ("```python\nprint(1)\n``", "```python\nprint(1)\n"),
        ("```python\n", ""),
        ("Код:\n\n```py", "Код:\n\n"),
        ("| a | b |\n|---|---|\n| 1 |", ""),
        ("Вступление\n\n| a | b |\n|---|", "Вступление\n\n"),
        ("| a | b |\n|---|---|\n| 1 | 2 |\n\nДальше", "| a | b |\n|---|---|\n| 1 | 2 |\n\nДальше"),
        ("Заголовок\n--", "Заголовок\n"),
        ("Список:\n\n- ", "Список:\n\n"),
        ("Список:\n\n- пункт", "Список:\n\n- пункт"),
        ("1.", ""),
        ("1. первый", "1. первый"),
        ("#", ""),
        ("# Заголовок", "# Заголовок"),
        ("> ", ""),
        ("> - ", ""),
        ("- **один** и 2*3\n- два **жир", "- **один** и 2*3\n- два "),
    ],
)
def test_block_constructs_wait_until_they_are_unambiguous(growing: str, expected: str) -> None:
    assert settled(growing) == expected


def test_a_finished_answer_is_kept_whole() -> None:
    answer = "Для шарлотки нужен **1 стакан сахара**.\n\n- мука\n- яйца\n\nГотово."
    assert settled(answer) == answer


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(documents(), st.data())
def test_every_snapshot_shows_a_beginning_of_the_final_answer(
    document: tuple[str, list[str]], data: st.DataObject
) -> None:
    markdown, _ = document
    final = shown(markdown)
    whole = len(render_answer(markdown)) == 1
    cuts = data.draw(st.lists(st.integers(1, len(markdown)), min_size=1, max_size=8))
    for cut in cuts:
        snapshot = settled(markdown[:cut])
        seen = shown(snapshot) if snapshot.strip() else ""
        if whole:
            assert final.startswith(seen), (markdown[:cut], seen)
        else:  # where a long answer is cut into parts depends on how much of it there is
            assert squeezed(final).startswith(squeezed(seen)), (markdown[:cut], seen)

"""Small pure pieces: addressing, question text, file names, texts, answer composition."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest
from aiogram.types import Message, User
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.agent import Answer
from bot.telegram.addressing import conversation_key, has_words, question_text
from bot.telegram.handlers.compose import answer_markdown
from bot.telegram.render import render_answer
from bot.telegram.texts import ENGLISH, RUSSIAN, Texts, language_of, texts_for
from bot.telegram.texts.numbers import count, plural
from bot.telegram.uploads import safe_file_name
from tests.fakes.accounts import bot_user_json
from tests.fakes.updates import mention_entity

ME = User.model_validate(bot_user_json())


def _message(text: str, chat_type: str = "private", **extra: Any) -> Message:
    chat_id = 7 if chat_type == "private" else -100_7
    data = {
        "message_id": 1,
        "date": 1,
        "chat": {"id": chat_id, "type": chat_type},
        "from": {"id": 7, "is_bot": False, "first_name": "U"},
        "text": text,
        **extra,
    }
    return Message.model_validate(data)


class TestQuestionText:
    def test_mention_in_the_middle_is_removed(self) -> None:
        text = "скажи, @docs_test_bot, где 🍎 рецепт?"
        message = _message(text, "group", entities=[mention_entity(text, "@docs_test_bot")])
        assert question_text(message, ME) == "скажи, , где 🍎 рецепт?"

    def test_other_mentions_stay(self) -> None:
        text = "@docs_test_bot спроси у @boss"
        entities = [mention_entity(text, "@docs_test_bot"), mention_entity(text, "@boss")]
        assert question_text(_message(text, "group", entities=entities), ME) == "спроси у @boss"

    def test_newlines_survive(self) -> None:
        assert question_text(_message("строка 1\nстрока 2"), ME) == "строка 1\nстрока 2"

    @given(st.text(alphabet=st.characters(categories=["So", "Sk", "P", "Zs"]), max_size=30))
    @settings(max_examples=60)
    def test_emoji_and_punctuation_are_not_words(self, text: str) -> None:
        assert not has_words(text)

    def test_keys(self) -> None:
        private, group = _message("x"), _message("x", "supergroup")
        assert conversation_key(private.chat, private.from_user) == "chat:7"
        assert conversation_key(group.chat, group.from_user) == "chat:-1007:user:7"
        topic = conversation_key(group.chat, group.from_user, 12)
        assert topic == "chat:-1007:topic:12:user:7"
        assert conversation_key(private.chat, private.from_user, 3) == "chat:7:topic:3"


class TestFileNames:
    @given(st.text(max_size=400), st.sampled_from([None, "application/pdf", "text/plain"]))
    @settings(max_examples=200)
    def test_always_safe(self, name: str, mime: str | None) -> None:
        safe = safe_file_name(name, mime)
        assert safe
        assert not safe.startswith(".")
        assert "/" not in safe
        assert "\\" not in safe
        assert "\x00" not in safe
        assert len(safe.encode()) <= 220
        assert safe == safe.strip()

    def test_examples(self) -> None:
        assert safe_file_name("../../etc/passwd") == "passwd"
        assert safe_file_name(".env") == "env"
        assert safe_file_name("отчёт: итог?.PDF") == "отчёт_ итог_.PDF"
        assert safe_file_name(None, "application/pdf") == "document.pdf"
        assert safe_file_name("a" * 300 + ".docx").endswith(".docx")


class TestTexts:
    def test_language_choice(self) -> None:
        assert [language_of(c) for c in ("ru", "be", "kk", "ru-RU")] == ["ru"] * 4
        assert language_of("uk") == "en"
        assert [language_of(c) for c in (None, "", "en", "de", "pl")] == ["en"] * 5
        assert texts_for("kk") is RUSSIAN
        assert texts_for("fr") is ENGLISH

    def test_stranger_id_is_escaped_code(self) -> None:
        assert "<code>123</code>" in RUSSIAN.stranger_reply(123)

    def test_every_field_is_translated(self) -> None:
        for field in fields(Texts):
            assert getattr(RUSSIAN, field.name) != getattr(ENGLISH, field.name), field.name


class TestAnswerMarkdown:
    def test_sources_line_last_and_open_fence_closed(self) -> None:
        answer = Answer(text="```python\nprint(1)", sources=("a.txt", "b/c.md"), truncated=True)
        text = answer_markdown(answer, ENGLISH)
        assert text.tail[-1] == "📄 Sources: `a.txt`, `b/c.md`"
        html = render_answer(text.body, tail=text.tail)[0].html
        assert "print(1)</code></pre>\n\n<i>The answer stopped at" in html

    def test_many_sources_are_shortened(self) -> None:
        answer = Answer(text="ok", sources=tuple(f"f{i}.txt" for i in range(8)))
        assert answer_markdown(answer, RUSSIAN).tail[-1].endswith("`f4.txt` и ещё 3")


class TestUnclosedFence:
    @pytest.mark.parametrize(
        "markdown",
        [
            "a\n```py\nx = 1",
            "a\n```\nx\n```",
            "````\n```\nx",
            "````\n```\nx\n```",
            "    ```\nindented code",
            "- item\n  ```\n  x",
            "```",
            "~~~\nx\n~~~",
        ],
    )
    def test_notes_stay_outside_the_code(self, markdown: str) -> None:
        html = render_answer(markdown, tail=("note",))[-1].html
        assert html.split("\n\n")[-1] == "note"


class TestNumbersInWords:
    @pytest.mark.parametrize(
        ("n", "word"),
        [
            (1, "минуту"),
            (2, "минуты"),
            (5, "минут"),
            (11, "минут"),
            (12, "минут"),
            (21, "минуту"),
            (22, "минуты"),
            (25, "минут"),
            (111, "минут"),
            (101, "минуту"),
        ],
    )
    def test_russian_plural_forms(self, n: int, word: str) -> None:
        assert plural("ru", n, RUSSIAN.minutes_forms) == word

    def test_english_counts_and_separators(self) -> None:
        assert count("en", 1, ENGLISH.rounds_forms) == "1 round"
        assert count("en", 1276, ENGLISH.rounds_forms) == "1,276 rounds"
        assert RUSSIAN.number(1276) == "1\u00a0276"

    def test_status_line_of_the_last_question(self) -> None:
        english = ENGLISH.status(
            model="m", tokens=1, window=10, messages=1, documents=1, ready=True, last=(1, 1200, 1)
        )
        assert "🔁 Last question: 1 round, 1,200 tokens in + 1 out" in english
        assert "1 message" in english

    def test_decimal_comma_in_russian(self) -> None:
        assert "за 3,5 с" in RUSSIAN.reindex_report(1, 0, 0, 3.5)
        assert "in 3.5 s" in ENGLISH.reindex_report(1, 0, 1, 3.5)
        assert "1 error." in ENGLISH.reindex_report(1, 0, 1, 3.5)


class TestStatusWhileIndexing:
    def test_building_note_reads_as_part_of_the_line(self) -> None:
        text = RUSSIAN.status(
            model="m", tokens=0, window=10, messages=0, documents=3, ready=False, last=None
        )
        assert "📚 Документов в поиске: 3 (индекс ещё строится)" in text

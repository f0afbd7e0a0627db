"""The Stemmer directly: inflected forms meet at one stem, folding is applied, and different
words stay apart. Search finds "рецепт_шарлотки.txt" for "шарлотка" only through this."""

from __future__ import annotations

import pytest

from tools.index.terms import Stemmer


@pytest.fixture(scope="module")
def stemmer() -> Stemmer:
    return Stemmer()


def stems(stemmer: Stemmer, forms: list[str]) -> set[str]:
    return {term for form in forms for term in stemmer.terms(form)}


class TestInflectedFormsShareAStem:
    @pytest.mark.parametrize(
        ("forms", "stem"),
        [
            (["отпуск", "отпуска", "отпуском", "отпусках", "отпуске"], "отпуск"),
            (["шарлотка", "шарлотки", "шарлотку", "шарлоткой"], "шарлотк"),
            (["договор", "договора", "договоров", "договорами"], "договор"),
            (["книга", "книги", "книгой"], "книг"),
        ],
        ids=["otpusk", "sharlotka", "dogovor", "kniga"],
    )
    def test_russian(self, stemmer: Stemmer, forms: list[str], stem: str) -> None:
        assert stems(stemmer, forms) == {stem}

    @pytest.mark.parametrize(
        ("forms", "stem"),
        [
            (["report", "reports", "reporting"], "report"),
            (["run", "runs", "running"], "run"),
            (["policy", "policies"], "polici"),
        ],
        ids=["report", "run", "policy"],
    )
    def test_english(self, stemmer: Stemmer, forms: list[str], stem: str) -> None:
        assert stems(stemmer, forms) == {stem}

    def test_english_irregular_forms_are_not_stemmed_together(self, stemmer: Stemmer) -> None:
        # Snowball strips suffixes; it knows nothing of "ran" being a form of "run"
        assert stemmer.terms("ran running") == ["ran", "run"]


class TestFolding:
    def test_yo_is_read_as_ye(self, stemmer: Stemmer) -> None:
        assert stemmer.terms("ёлка") == stemmer.terms("елка") == ["елк"]
        assert stems(stemmer, ["отчёт", "отчет", "отчёты", "отчетов"]) == {"отчет"}

    def test_case_is_folded(self, stemmer: Stemmer) -> None:
        assert stemmer.terms("ОТПУСКА Отпуском") == ["отпуск", "отпуск"]
        assert stemmer.terms("Ёлки ЁЛКА") == ["елк", "елк"]
        assert stemmer.terms("REPORTS Running") == ["report", "run"]

    def test_a_file_name_is_split_and_stemmed(self, stemmer: Stemmer) -> None:
        assert stemmer.name_terms("документы/Рецепт_шарлотки.txt") == [
            "документ",
            "рецепт",
            "шарлотк",
            "txt",
        ]


class TestDifferentWordsStayApart:
    @pytest.mark.parametrize(
        "words",
        [
            ["стол", "столб", "столица"],
            ["шарлотка", "шарлатан"],
            ["книга", "книжка"],
            ["отпуск", "отчет", "договор"],
            ["report", "repo"],
            ["policy", "police"],
        ],
        ids=["stol", "sharlotka", "kniga", "three-words", "report", "policy"],
    )
    def test_distinct_stems(self, stemmer: Stemmer, words: list[str]) -> None:
        assert len(stems(stemmer, words)) == len(words)

    def test_numbers_stay_as_they_are(self, stemmer: Stemmer) -> None:
        assert stemmer.terms("2024 отпуска 15") == ["2024", "отпуск", "15"]


class TestBag:
    def test_every_word_counted_under_its_stem(self, stemmer: Stemmer) -> None:
        body = stemmer.bag("И и и и 2024 2024 отчет Отчёты отчетов план планы склад")
        assert sorted(body.split()) == sorted(
            ["и"] * 4 + ["2024"] * 2 + ["отчет"] * 3 + ["план"] * 2 + ["склад"]
        )

"""The code-page score counts letters in bulk; it must equal the letter-by-letter definition."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tools.extract import encodings
from tools.extract.encodings import russian_score

_LETTERS = "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"
_ALPHABET = _LETTERS + "abcXYZ ÖçİǅK«»—№… ╚═╝ \x00,.!?0123456789\n"


def _letter_by_letter(text: str) -> float:
    table = encodings._LETTER_SCORE
    total = 0.0
    letters = 0
    for word in encodings._WORD.findall(text):
        if word.isascii():
            continue
        title_or_upper = word.isupper() or (word[0].isupper() and word[1:].islower())
        for i, ch in enumerate(word):
            score = table.get(ch.lower())
            if score is None:
                score = -12.0 if not ch.isascii() else -6.0
            elif ch.isupper() and i > 0 and not title_or_upper:
                score -= 6.0
            total += score
            letters += 1
    for ch in text:
        if not ch.isascii() and not ch.isalpha() and ch not in "«»—–№…“”„’ ":
            total -= 8.0
            letters += 1
    return total / letters if letters else -100.0


@given(st.text(alphabet=_ALPHABET, max_size=400))
def test_the_bulk_score_is_the_letter_by_letter_score(text: str) -> None:
    assert abs(russian_score(text) - _letter_by_letter(text)) < 1e-9


def test_a_wrong_code_page_scores_lower() -> None:
    right = "Съешь же ещё этих мягких французских булок, да выпей чаю."
    wrong = right.encode("cp1251").decode("koi8_r")
    assert russian_score(right) > russian_score(wrong)

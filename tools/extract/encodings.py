"""Bytes to text: UTF-8/16 by BOM or validity, the old Russian code pages by plausibility.

Detectors guess poorly on short Russian texts (a 20-byte cp1251 line often reads as something
else), so the three Cyrillic code pages are decoded and scored by how Russian the result looks;
charset-normalizer decides only what that scoring cannot. Anything that looks binary is refused
instead of being shown as mojibake.
"""

from __future__ import annotations

import codecs
import math
import re
from collections import Counter

from tools.errors import ContentError

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_CYRILLIC_PAGES = ("cp1251", "koi8-r", "cp866")
# Relative frequency (per mille) of Russian letters in ordinary prose.
_RU_FREQ = {
    "о": 110, "е": 85, "а": 80, "и": 74, "н": 67, "т": 63, "с": 55, "р": 47, "в": 45,
    "л": 44, "к": 35, "м": 32, "д": 30, "п": 28, "у": 26, "я": 20, "ы": 19, "ь": 17,
    "г": 17, "з": 16, "б": 16, "ч": 14, "й": 12, "х": 10, "ж": 9, "ш": 7, "ю": 6,
    "ц": 5, "щ": 4, "э": 3, "ф": 3, "ъ": 1, "ё": 2,
}  # fmt: skip
_LETTER_SCORE = {ch: math.log(f / 1000) for ch, f in _RU_FREQ.items()}
_WORD = re.compile(r"[^\W\d_]+")
_SYMBOLS = frozenset("«»—–№…“”„’ ")
_SAMPLE_BYTES = 64 * 1024
_SCORED_BYTES = 8 * 1024  # thousands of letters: plenty to tell the code page, and cheap
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
# CJK and other rare planes: what a short single-byte Cyrillic text turns into when it happens
# to be valid UTF-8 (emoji excluded: they are common in real UTF-8 text).
_RARE = re.compile("[\u3000-\U0001efff\U0001fb00-\U0002ffff]")
_NOT_CONTROL = bytes(b for b in range(256) if b >= 32 or b in (9, 10, 12, 13, 27))


def looks_binary(data: bytes) -> bool:
    """NUL bytes or many control bytes in the head mean this is not a text file."""
    head = data[:8192]
    if not head:
        return False
    if b"\x00" in head:
        return True
    controls = len(head.translate(None, _NOT_CONTROL))
    return controls / len(head) > 0.02


def _utf16_without_bom(head: bytes) -> str | None:
    """UTF-16 written without a BOM: every other byte is a high byte from a tiny set
    (0x00 for ASCII, 0x04 for Cyrillic), and the text decodes to printable characters."""
    head = head[: len(head) // 2 * 2]
    if len(head) < 4:
        return None
    for name, high in (("utf-16-le", head[1::2]), ("utf-16-be", head[0::2])):
        common = high.count(0) + high.count(4)
        if common / len(high) < 0.9 or high.count(0) == len(high):
            continue
        text = head.decode(name, errors="replace")
        printable = sum(1 for ch in text if ch.isprintable() or ch in "\n\r\t")
        if printable / len(text) > 0.95:
            return name
    return None


def russian_score(text: str) -> float:
    """Average per-letter plausibility of `text` as Russian (higher is more plausible).

    Case matters: a wrong code page turns lower case into upper case inside words, and puts
    box-drawing or Latin-1 symbols where letters should be. Letters are scored by how often
    each occurs (counted in C), not one by one: this runs for every file not in UTF-8.
    """
    words = [word for word in _WORD.findall(text) if not word.isascii()]
    letters = Counter("".join(words))
    total = sum(_letter_score(ch) * n for ch, n in letters.items())
    count = sum(letters.values())
    for word in words:
        if not (word[1:].islower() or word.isupper()):
            total -= 6.0 * sum(ch.isupper() and ch.lower() in _LETTER_SCORE for ch in word[1:])
    for ch, n in Counter(text).items():
        if not ch.isascii() and not ch.isalpha() and ch not in _SYMBOLS:
            total -= 8.0 * n
            count += n
    return total / count if count else -100.0


def _letter_score(ch: str) -> float:
    score = _LETTER_SCORE.get(ch.lower())
    if score is None:
        return -12.0 if not ch.isascii() else -6.0
    return score


def _best_cyrillic(data: bytes) -> tuple[str, float]:
    sample = data[:_SCORED_BYTES]
    scored = [
        (russian_score(sample.decode(page, errors="replace").replace("\ufffd", "\x00")), page)
        for page in _CYRILLIC_PAGES
    ]
    score, page = max(scored)
    return page, score


def _utf8_verdict(data: bytes) -> bool:
    """Whether `data` is UTF-8: valid, cut mid-character at the end, or only slightly damaged.

    A short single-byte Cyrillic text can happen to be valid UTF-8 (cp866 "Ёлка" is one rare
    CJK character); such a decoding is accepted only when it does not read better as Russian.
    """
    sample = data[:_SAMPLE_BYTES]
    try:
        text = sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        cut_at_end = exc.start >= len(sample) - 3 and exc.reason == "unexpected end of data"
        text = sample.decode("utf-8", errors="replace")
        broken = text.count("\ufffd")
        good = sum(1 for ch in text if ord(ch) > 127 and ch != "\ufffd")
        if cut_at_end and broken == 1 and good:
            return True  # a file being written, cut in the middle of a character
        return good >= 10 and broken * 10 <= good
    if text.isascii():
        return True
    if _RARE.search(text):
        _, score = _best_cyrillic(data)
        return score <= -4.0 or russian_score(text[:_SCORED_BYTES]) > score
    return True


def detect_encoding(data: bytes) -> str:
    """The encoding `data` is most plausibly written in; raises ContentError for binary."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name + ("-sig" if name == "utf-8" else "")
    wide = _utf16_without_bom(data[:4096])
    if wide:
        return wide
    if looks_binary(data):
        raise ContentError("this is a binary file, not text")
    utf8 = _utf8_verdict(data)
    if utf8:
        return "utf-8"
    page, score = _best_cyrillic(data)
    if score > -5.0:
        return page
    from charset_normalizer import from_bytes  # noqa: PLC0415 - the rare last resort

    guess = from_bytes(data[:_SAMPLE_BYTES]).best()
    if guess is not None and guess.encoding:
        return str(guess.encoding)
    raise ContentError("the text encoding could not be recognised")


def decode_bytes(data: bytes) -> str:
    """Decode a whole file to text (damaged bytes become U+FFFD, never a crash)."""
    encoding = detect_encoding(data)
    text = data.decode(encoding, errors="replace")
    if encoding.startswith("utf-16") or encoding.startswith("utf-32"):
        text = text.removeprefix("\ufeff")
        if _CONTROL.search(text[:4096]) and looks_binary(text[:4096].encode("utf-8", "replace")):
            raise ContentError("this is a binary file, not text")
    return text

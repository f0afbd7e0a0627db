"""Numbers in words the way each language writes them: plurals, thousands, decimals."""

from __future__ import annotations

_NBSP = "\u00a0"


def russian_form(n: int) -> int:
    """0 for one (1, 21, 101), 1 for few (2–4, 22–24), 2 for many (0, 5–20, 11–14, 25…)."""
    n = abs(n)
    if n % 10 == 1 and n % 100 != 11:
        return 0
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return 1
    return 2


def plural(lang: str, n: int, forms: tuple[str, ...]) -> str:
    """The noun for `n`: `forms` is (one, few, many) in Russian, (one, other) in English."""
    if lang == "ru":
        return forms[russian_form(n)]
    return forms[0] if n == 1 else forms[1]


def integer(lang: str, n: int) -> str:
    """`1 276` (no-break space) in Russian, `1,276` in English."""
    grouped = f"{n:,}"
    return grouped.replace(",", _NBSP) if lang == "ru" else grouped


def decimal(lang: str, value: float, digits: int = 1) -> str:
    """`3,5` in Russian, `3.5` in English."""
    text = f"{value:.{digits}f}"
    return text.replace(".", ",") if lang == "ru" else text


def count(lang: str, n: int, forms: tuple[str, ...]) -> str:
    """`5 минут`, `1 minute`, `1,276 messages`."""
    return f"{integer(lang, n)} {plural(lang, n, forms)}"

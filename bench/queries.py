"""The search query mix: inflected Russian, English, globs, phrases and queries with no hit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Query:
    """One query as the model would send it, and how ripgrep is asked the same."""

    kind: str
    text: str
    glob: str | None = None

    @property
    def words(self) -> list[str]:
        return self.text.split()


RU_INFLECTED = [
    "отпусками",
    "договоров",
    "сотрудникам",
    "командировке",
    "инструкцией",
    "собеседованию",
    "шарлотку",
    "поставками",
    "налогами",
    "подписью",
    "регламентов",
    "страховкой",
    "пароля",
    "елки",
    "утвердили",
]
EN_WORDS = ["invoices", "approved", "deliveries", "warehouse", "travelling", "recipes", "budgets"]
PHRASES = ["годовой отчет", "оплата счета", "annual report", "рецепт шарлотки"]
GLOBS = ["*.pdf", "*.docx", "рецепт*", "*invoice*", "отчет_*.md"]
NO_HIT = ["зюзюбрякс", "флюгегехаймен", "qwxzptlk", "бармаглотище"]


def query_mix() -> list[Query]:
    """Every query of the benchmark, in a fixed order."""
    mix = [Query("ru-inflected", q) for q in RU_INFLECTED]
    mix += [Query("en", q) for q in EN_WORDS]
    mix += [Query("phrase", q) for q in PHRASES]
    mix += [Query("glob", q, glob=q) for q in GLOBS]
    mix += [Query("no-hit", q) for q in NO_HIT]
    return mix

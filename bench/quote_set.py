"""The quotes benchmark's documents and questions: the shipped samples, the placed documents of
the tests, and a regulation PDF of several pages, a sales workbook and a deck written here.

Each question is a search query and the document whose snippet answers it; the benchmark reads
the rest from the real tools.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from bench.context import REPO_ROOT
from bench.prose import Vocabulary, paragraphs
from tests.tools.docgen import text_pdf
from tests.tools.office_docgen import Rows, pptx_file, xlsx_file
from tests.tools.placed_docs import write_placed

REGULATION_PAGES = [
    [
        "Регламент работы склада",
        "Склад открыт для приёмки товара с 8:00 до 20:00 по будним дням.",
        "В субботу приёмка ведётся только по предварительной записи.",
    ],
    [
        "Каждая поставка сопровождается товарной накладной в двух экземплярах.",
        "Кладовщик сверяет количество мест с накладной в течение 30 минут",
    ],
    [
        "после разгрузки автомобиля. Расхождения фиксируются в акте приёмки.",
        "Акт подписывают кладовщик, водитель и представитель поставщика.",
    ],
    [
        "Температура в зоне хранения поддерживается от +2 до +8 градусов.",
        "Показания термометров записываются в журнал каждые четыре часа.",
    ],
    [
        "Инвентаризация склада проводится ежеквартально — в последнюю пятницу квартала.",
        "Недостача свыше 0,5 % оборота рассматривается комиссией.",
    ],
    [
        "Пропуск на территорию склада выдаёт служба охраны на один рабочий день.",
        "Погрузчиком управляют только сотрудники с удостоверением «водитель погрузчика».",
    ],
]
SALES_SHEETS: dict[str, Rows] = {
    "Январь": [
        ["Менеджер", "Регион", "Выручка"],
        ["Соколова", "Самара", 4120000],
        ["Воронин", "Казань", 3870000],
    ],
    "Февраль": [
        ["Менеджер", "Регион", "Выручка"],
        ["Соколова", "Самара", 4415000],
        ["Лебедев", "Пермь", 2990000],
    ],
    "Итоги": [
        ["Показатель", "Значение"],
        ["Лучший регион квартала", "Самара"],
        ["План на март выполнен на", "96 %"],
    ],
}
DECK_SLIDES: list[tuple[str, list[str], Rows, str]] = [
    ("Итоги года", ["Выручка компании выросла до 812 миллионов рублей"], [], ""),
    ("Клиенты", ["Число постоянных клиентов достигло 1 460 организаций"], [], ""),
    ("Команда", ["В штат приняты 37 новых сотрудников, из них 12 инженеров"], [], ""),
    ("Планы", ["Запуск мобильного приложения для заказчиков в мае"], [], ""),
    ("Бюджет", ["Расходы на маркетинг сокращаются на восемь процентов"], [], ""),
]
QUESTIONS: list[tuple[str, str]] = [
    ("calendar days vacation", "hr/vacation_policy.md"),
    ("request vacation advance", "hr/vacation_policy.md"),
    ("unused days carry over", "hr/vacation_policy.md"),
    ("part-time proportion hours", "hr/vacation_policy.md"),
    ("заболели сообщите руководителю", "hr/больничный.md"),
    ("больничный электронном виде", "hr/больничный.md"),
    ("первые три дня болезни", "hr/больничный.md"),
    ("отпуск продлевается больничного", "hr/больничный.md"),
    ("взбейте яйца сахаром", "документы/рецепт_шарлотки.txt"),
    ("выпекайте минут", "документы/рецепт_шарлотки.txt"),
    ("деревянной шпажкой", "документы/рецепт_шарлотки.txt"),
    ("рабочий день начинается", "правила.pdf"),
    ("оплачиваемый отпуск календарных", "правила.pdf"),
    ("заявление на отпуск подаётся", "правила.pdf"),
    ("командировочные расходы", "правила.pdf"),
    ("аренда офиса", "финансы/бюджет.xlsx"),
    ("обучение персонала", "финансы/бюджет.xlsx"),
    ("отдел продаж человек", "финансы/бюджет.xlsx"),
    ("рост выручки процентов", "стратегия.pptx"),
    ("филиала Казани", "стратегия.pptx"),
    ("нехватка инженеров", "стратегия.pptx"),
    ("листок нетрудоспособности", "hr/справочник.md"),
    ("работать из дома", "hr/справочник.md"),
    ("пропуск служба безопасности", "hr/справочник.md"),
    ("квартальной премии оклада", "hr/премии.docx"),
    ("премия выплачивается", "hr/премии.docx"),
    ("гостевой сети пароль", "памятка.txt"),
    ("приёмки товара будним", "склад/регламент.pdf"),
    ("сверяет количество мест", "склад/регламент.pdf"),
    ("акт подписывают", "склад/регламент.pdf"),
    ("температура зоне хранения", "склад/регламент.pdf"),
    ("инвентаризация ежеквартально", "склад/регламент.pdf"),
    ("погрузчиком управляют", "склад/регламент.pdf"),
    ("Соколова Самара", "продажи/отчёт.xlsx"),
    ("Лебедев Пермь", "продажи/отчёт.xlsx"),
    ("лучший регион квартала", "продажи/отчёт.xlsx"),
    ("выручка компании выросла", "продажи/итоги.pptx"),
    ("постоянных клиентов", "продажи/итоги.pptx"),
    ("мобильного приложения", "продажи/итоги.pptx"),
    ("расходы на маркетинг", "продажи/итоги.pptx"),
]


LONG_DOCUMENT = "архив/протоколы.md"
"""A long Markdown document with headings, read page by page to fill the timing evidence."""


def minutes_text(approx_chars: int = 90_000) -> str:
    """Meeting minutes of generated prose, a heading before every few paragraphs."""
    rng = random.Random(24)
    parts = paragraphs(rng, Vocabulary.build("ru"), approx_chars)
    out: list[str] = []
    for number, paragraph in enumerate(parts):
        if number % 4 == 0:
            out.append(f"## Протокол заседания № {number // 4 + 1}")
        out.append(paragraph)
    return "\n\n".join(out) + "\n"


def write_documents(root: Path) -> Path:
    """The documents folder under `root` (filled once; returns `root`)."""
    if root.exists():
        return root
    shutil.copytree(REPO_ROOT / "sandbox", root)
    write_placed(root)
    generated = {
        "склад/регламент.pdf": text_pdf(REGULATION_PAGES),
        "продажи/отчёт.xlsx": xlsx_file(SALES_SHEETS),
        "продажи/итоги.pptx": pptx_file(DECK_SLIDES),
        LONG_DOCUMENT: minutes_text().encode(),
    }
    for rel, data in generated.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root

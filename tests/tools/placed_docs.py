"""A documents folder whose every kind of place is known: PDF pages, sheets, slides, Markdown
and Word headings, and a plain text that has none. Tests of places and of quotes, and the
quotes benchmark, read the same files."""

from __future__ import annotations

import io
from pathlib import Path

from tests.fakes.sandbox_fixtures import write_files
from tests.tools.docgen import text_pdf
from tests.tools.office_docgen import Rows, pptx_file, xlsx_file

RULES_PAGES = [
    [
        "Правила внутреннего распорядка",
        "Рабочий день начинается в 9:00 и заканчивается в 18:00.",
        "Обеденный перерыв длится один час.",
    ],
    [
        "Ежегодный оплачиваемый отпуск составляет 28 календарных дней.",
        "Заявление на отпуск подаётся не позднее чем за две недели",
    ],
    [
        "до его начала. Перенос отпуска согласуется с руководителем.",
        "Командировочные расходы возмещаются по авансовому отчёту.",
    ],
]
BUDGET_SHEETS: dict[str, Rows] = {
    "Бюджет": [
        ["Статья", "Сумма", "Ответственный"],
        ["Аренда офиса", 1200000, "Петрова"],
        ["Обучение персонала", 350000, "Сидоров"],
    ],
    "Штат": [
        ["Отдел", "Человек"],
        ["Бухгалтерия", 4],
        ["Отдел продаж", 12],
    ],
}
STRATEGY_SLIDES: list[tuple[str, list[str], Rows, str]] = [
    ("Стратегия на 2025 год", ["Рост выручки на пятнадцать процентов"], [], ""),
    ("Новые рынки", ["Открытие филиала в Казани во втором квартале"], [], ""),
    ("Риски", ["Главный риск: нехватка инженеров в регионах"], [], ""),
]
HANDBOOK_MD = """# Справочник сотрудника

Добро пожаловать в компанию.
Пропуск выдаёт служба безопасности — в день выхода на работу («первый день»).

## Больничный

Листок нетрудоспособности передаётся в отдел кадров в течение трёх дней.

## Удалённая работа

Работать из дома можно два дня в неделю по согласованию с руководителем.
"""
MEMO_TEXT = "Памятка без разделов.\nПароль от гостевой сети меняется каждый понедельник.\n"
WORD_PARAGRAPHS = [
    ("Heading 1", "Положение о премировании"),
    (None, "Премия выплачивается ежеквартально."),
    ("Заголовок 2", "Размер премии"),
    (None, "Размер квартальной премии составляет до двадцати процентов оклада."),
]


def word_file(paragraphs: list[tuple[str | None, str]]) -> bytes:
    """A docx of paragraphs, each in its named paragraph style (None: the default); a style
    the template lacks (a localized heading) is added as a paragraph style."""
    import docx  # noqa: PLC0415
    from docx.enum.style import WD_STYLE_TYPE  # noqa: PLC0415

    document = docx.Document()
    names = {style.name for style in document.styles}
    for style, text in paragraphs:
        if style is not None and style not in names:
            document.styles.add_style(style, WD_STYLE_TYPE.PARAGRAPH)
            names.add(style)
        document.add_paragraph(text, style=style)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def placed_files() -> dict[str, bytes]:
    """The files by relative path."""
    return {
        "правила.pdf": text_pdf(RULES_PAGES),
        "финансы/бюджет.xlsx": xlsx_file(BUDGET_SHEETS),
        "стратегия.pptx": pptx_file(STRATEGY_SLIDES),
        "hr/справочник.md": HANDBOOK_MD.encode(),
        "hr/премии.docx": word_file(WORD_PARAGRAPHS),
        "памятка.txt": MEMO_TEXT.encode(),
    }


def write_placed(root: Path) -> Path:
    """The folder written under `root`; returns `root`."""
    return write_files(root, placed_files())

"""Writers for the office documents of the read benchmark: a 50-sheet workbook (xlsxwriter),
a 100-slide deck (python-pptx) and a 300-chapter EPUB book (written as a zip by hand).

Each is filled with the benchmark's generated prose, so its size and word forms look like a
real company's file, and depends only on the random generator it is given.
"""

from __future__ import annotations

import datetime as dt
import random
import zipfile
from html import escape
from pathlib import Path

import xlsxwriter
from pptx import Presentation
from pptx.util import Cm

from bench.prose import Vocabulary, paragraphs

_FIXED_DATE = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
_COLUMNS = ("№", "Сотрудник", "Отдел", "Дата", "Сумма", "Комментарий")


def _words(rng: random.Random, vocab: Vocabulary, count: int) -> str:
    return " ".join(rng.choices(vocab.words, cum_weights=vocab.cum_weights, k=count))


def write_xlsx(
    path: Path, rng: random.Random, vocab: Vocabulary, *, sheets: int, rows: int
) -> None:
    """A workbook of `sheets` sheets of `rows` rows: numbers, dates, names, comments and a
    formula total at the bottom of each (with the value Excel would have saved)."""
    book = xlsxwriter.Workbook(str(path))
    book.set_properties({"created": _FIXED_DATE.replace(tzinfo=None)})
    dates = book.add_format({"num_format": "dd.mm.yyyy"})
    for number in range(1, sheets + 1):
        sheet = book.add_worksheet(f"Лист {number:02d} {_words(rng, vocab, 1)}"[:31])
        sheet.write_row(0, 0, _COLUMNS)
        total = 0.0
        for row in range(1, rows + 1):
            amount = round(rng.uniform(1_000, 250_000), 2)
            total += amount
            sheet.write_number(row, 0, row)
            sheet.write_string(row, 1, _words(rng, vocab, 2).title())
            sheet.write_string(row, 2, _words(rng, vocab, 1))
            sheet.write_datetime(row, 3, dt.date(2024, 1, 1) + dt.timedelta(days=row), dates)
            sheet.write_number(row, 4, amount)
            sheet.write_string(row, 5, _words(rng, vocab, rng.randint(3, 12)))
        sheet.write_formula(rows + 2, 4, f"=SUM(E2:E{rows + 1})", None, round(total, 2))
    book.close()


def write_pptx(path: Path, rng: random.Random, vocab: Vocabulary, *, slides: int) -> None:
    """A deck of `slides` slides: a title, five bullet points, a table on every fifth slide,
    and speaker notes."""
    deck = Presentation()
    for number in range(1, slides + 1):
        slide = deck.slides.add_slide(deck.slide_layouts[1])  # title and content
        slide.shapes.title.text = f"{number}. {_words(rng, vocab, 4).capitalize()}"
        body = slide.placeholders[1].text_frame
        body.text = _words(rng, vocab, 10)
        for _ in range(4):
            body.add_paragraph().text = _words(rng, vocab, rng.randint(6, 14))
        if number % 5 == 0:
            shape = slide.shapes.add_table(4, 3, Cm(2), Cm(12), Cm(20), Cm(4))
            for r in range(4):
                for c in range(3):
                    shape.table.cell(r, c).text = _words(rng, vocab, 2)
        slide.notes_slide.notes_text_frame.text = " ".join(paragraphs(rng, vocab, 400))
    deck.core_properties.created = _FIXED_DATE.replace(tzinfo=None)
    deck.save(str(path))


def write_epub(path: Path, rng: random.Random, vocab: Vocabulary, *, chapters: int) -> None:
    """A book of `chapters` chapters of about 6,000 characters, titled in its navigation
    document, with a cover picture."""
    items, refs, links = [], [], []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr(zipfile.ZipInfo("mimetype", (2025, 1, 1, 0, 0, 0)), "application/epub+zip")
        book.writestr(
            zipfile.ZipInfo("META-INF/container.xml", (2025, 1, 1, 0, 0, 0)),
            '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
            'opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" '
            'media-type="application/oebps-package+xml"/></rootfiles></container>',
        )
        for number in range(1, chapters + 1):
            name = f"text/chapter{number:03d}.xhtml"
            title = escape(f"Глава {number}. {_words(rng, vocab, 3).capitalize()}")
            body = "".join(f"<p>{escape(p)}</p>" for p in paragraphs(rng, vocab, 6_000))
            _put(book, f"OEBPS/{name}", _xhtml(f"<h1>{title}</h1>{body}"))
            items.append(
                f'<item id="c{number}" href="{name}" media-type="application/xhtml+xml"/>'
            )
            refs.append(f'<itemref idref="c{number}"/>')
            links.append(f'<li><a href="{name}">{title}</a></li>')
        items.append(
            '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
        )
        items.append('<item id="cover" href="cover.png" media-type="image/png"/>')
        _put(
            book,
            "OEBPS/nav.xhtml",
            _xhtml(f'<nav epub:type="toc"><ol>{"".join(links)}</ol></nav>'),
        )
        _put(book, "OEBPS/cover.png", rng.randbytes(200_000))
        _put(
            book,
            "OEBPS/content.opf",
            '<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" '
            f'version="3.0"><metadata/><manifest>{"".join(items)}</manifest>'
            f"<spine>{''.join(refs)}</spine></package>",
        )


def _put(book: zipfile.ZipFile, name: str, data: str | bytes) -> None:
    book.writestr(zipfile.ZipInfo(name, (2025, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)


def _xhtml(body: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml" '
        'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Книга</title></head>'
        f"<body>{body}</body></html>"
    )

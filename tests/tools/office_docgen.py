"""Office documents the tests generate with the writer libraries of the dev extra (xlsxwriter,
xlwt, odfpy, python-pptx) or by hand where the format is simple (RTF, EPUB, e-mail)."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Sequence
from email.message import EmailMessage
from typing import Any

Rows = Sequence[Sequence[Any]]


def xlsx_file(
    sheets: dict[str, Rows], formulas: Sequence[tuple[str, str, str, Any]] = ()
) -> bytes:
    """A workbook of sheets of rows (None leaves a cell empty); `formulas` adds
    (sheet, cell, formula, cached value) cells, whose value Excel would have saved."""
    import xlsxwriter  # noqa: PLC0415  (dev-only dependency)

    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True})
    dates = book.add_format({"num_format": "dd.mm.yyyy"})
    for name, rows in sheets.items():
        sheet = book.add_worksheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                if isinstance(value, dt.date):
                    sheet.write_datetime(r, c, value, dates)
                elif value is not None:
                    sheet.write(r, c, value)
        for where, cell, formula, cached in formulas:
            if where == name:
                sheet.write_formula(cell, formula, None, cached)
    book.close()
    return buffer.getvalue()


def xls_file(sheets: dict[str, Rows]) -> bytes:
    """An Excel 97–2003 workbook."""
    import xlwt  # noqa: PLC0415

    book = xlwt.Workbook(encoding="utf-8")
    for name, rows in sheets.items():
        sheet = book.add_sheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                if value is not None:
                    sheet.write(r, c, value)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def ods_file(sheets: dict[str, Rows], *, repeat: tuple[int, int] | None = None) -> bytes:
    """An OpenDocument spreadsheet; `repeat` (rows, columns) prepends a sheet «Огромный» of
    one value repeated over that many rows and columns (a few bytes declaring many cells)."""
    from odf.opendocument import OpenDocumentSpreadsheet  # noqa: PLC0415
    from odf.table import Table, TableCell, TableRow  # noqa: PLC0415
    from odf.text import P  # noqa: PLC0415

    document = OpenDocumentSpreadsheet()
    if repeat is not None:
        table = Table(name="Огромный")
        row = TableRow(numberrowsrepeated=repeat[0])
        cell = TableCell(numbercolumnsrepeated=repeat[1], valuetype="float", value=1)
        cell.addElement(P(text="1"))
        row.addElement(cell)
        table.addElement(row)
        document.spreadsheet.addElement(table)
    for name, rows in sheets.items():
        table = Table(name=name)
        for values in rows:
            row = TableRow()
            for value in values:
                if value is None:
                    cell = TableCell()
                elif isinstance(value, str):
                    cell = TableCell(valuetype="string")
                    cell.addElement(P(text=value))
                else:
                    cell = TableCell(valuetype="float", value=value)
                    cell.addElement(P(text=str(value)))
                row.addElement(cell)
            table.addElement(row)
        document.spreadsheet.addElement(table)
    return _odf_bytes(document)


def odt_file(heading: str, paragraphs: Sequence[str], table: Rows) -> bytes:
    """A text document: a heading, paragraphs, a bulleted item and a table."""
    from odf.opendocument import OpenDocumentText  # noqa: PLC0415
    from odf.table import Table, TableCell, TableColumn, TableRow  # noqa: PLC0415
    from odf.text import H, List, ListItem, P  # noqa: PLC0415

    document = OpenDocumentText()
    document.text.addElement(H(outlinelevel=1, text=heading))
    for text in paragraphs:
        document.text.addElement(P(text=text))
    items = List()
    item = ListItem()
    item.addElement(P(text="Пункт списка о больничных листах"))
    items.addElement(item)
    document.text.addElement(items)
    grid = Table(name="Таблица1")
    grid.addElement(TableColumn(numbercolumnsrepeated=len(table[0])))
    for values in table:
        row = TableRow()
        for value in values:
            cell = TableCell()
            cell.addElement(P(text=str(value)))
            row.addElement(cell)
        grid.addElement(row)
    document.text.addElement(grid)
    return _odf_bytes(document)


def odp_file(slides: Sequence[tuple[str, Sequence[str], str]]) -> bytes:
    """A presentation of (title, body lines, notes) slides."""
    from odf.draw import Frame, Page, TextBox  # noqa: PLC0415
    from odf.namespaces import PRESENTATIONNS  # noqa: PLC0415
    from odf.opendocument import OpenDocumentPresentation  # noqa: PLC0415
    from odf.presentation import Notes  # noqa: PLC0415
    from odf.style import MasterPage, PageLayout  # noqa: PLC0415
    from odf.text import P  # noqa: PLC0415

    document = OpenDocumentPresentation()
    layout = PageLayout(name="Layout")
    document.automaticstyles.addElement(layout)
    master = MasterPage(name="Master", pagelayoutname=layout)
    document.masterstyles.addElement(master)

    def frame(cls: str, lines: Sequence[str]) -> Any:
        box = Frame(width="20cm", height="3cm", x="1cm", y="1cm")
        box.setAttrNS(PRESENTATIONNS, "class", cls)
        text = TextBox()
        for line in lines:
            text.addElement(P(text=line))
        box.addElement(text)
        return box

    for title, body, notes in slides:
        page = Page(masterpagename=master)
        page.addElement(frame("outline", body))  # written before the title: title comes first
        page.addElement(frame("title", [title]))
        if notes:
            remarks = Notes()
            remarks.addElement(frame("notes", [notes]))
            page.addElement(remarks)
        document.presentation.addElement(page)
    return _odf_bytes(document)


def _odf_bytes(document: Any) -> bytes:
    buffer = io.BytesIO()
    document.write(buffer)
    return buffer.getvalue()


def pptx_file(slides: Sequence[tuple[str, Sequence[str], Rows, str]]) -> bytes:
    """A deck of (title, body lines, table rows, notes) slides."""
    from pptx import Presentation  # noqa: PLC0415
    from pptx.util import Cm  # noqa: PLC0415

    deck = Presentation()
    for title, body, table, notes in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
        slide.shapes.title.text = title
        box = slide.shapes.add_textbox(Cm(2), Cm(5), Cm(20), Cm(4))
        box.text_frame.text = body[0] if body else ""
        for line in body[1:]:
            box.text_frame.add_paragraph().text = line
        if table:
            shape = slide.shapes.add_table(len(table), len(table[0]), Cm(2), Cm(10), Cm(20), Cm(4))
            for r, row in enumerate(table):
                for c, value in enumerate(row):
                    shape.table.cell(r, c).text = str(value)
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def rtf_file(paragraphs: Sequence[str]) -> bytes:
    """An RTF document in code page 1251, Cyrillic written as `\\'xx` escapes as Word does."""
    body = "".join(
        "".join(f"\\'{b:02x}" if b > 0x7F else chr(b) for b in text.encode("cp1251")) + "\\par\n"
        for text in paragraphs
    )
    header = "{\\rtf1\\ansi\\ansicpg1251\\deff0{\\fonttbl{\\f0\\fswiss\\fcharset204 Arial;}}\n"
    picture = "{\\pict\\pngblip " + "89504e47" * 2000 + "}\n"  # pictures are skipped
    return (header + "\\f0 " + body + picture + "}").encode("ascii")


def epub_file(title: str, chapters: Sequence[tuple[str, Sequence[str]]]) -> bytes:
    """An EPUB 3 book: its chapters listed in the spine, titled in the navigation document."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        book.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="OEBPS/content.opf" '
            'media-type="application/oebps-package+xml"/></rootfiles></container>',
        )
        items = [
            '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" '
            'properties="nav"/>',
            '<item id="cover" href="images/cover.png" media-type="image/png"/>',
        ]
        refs, links = [], []
        for n, (heading, paragraphs) in enumerate(chapters, start=1):
            name = f"text/chapter{n:03d}.xhtml"
            items.append(f'<item id="c{n}" href="{name}" media-type="application/xhtml+xml"/>')
            refs.append(f'<itemref idref="c{n}"/>')
            links.append(f'<li><a href="{name}">{heading}</a></li>')
            body = "".join(f"<p>{p}</p>" for p in paragraphs)
            book.writestr(f"OEBPS/{name}", _xhtml(title, f"<h1>{heading}</h1>{body}"))
        book.writestr(
            "OEBPS/content.opf",
            '<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" '
            f'version="3.0"><metadata/><manifest>{"".join(items)}</manifest>'
            f"<spine>{''.join(refs)}</spine></package>",
        )
        nav = f'<nav epub:type="toc"><ol>{"".join(links)}</ol></nav>'
        book.writestr("OEBPS/nav.xhtml", _xhtml(title, nav))
        book.writestr("OEBPS/images/cover.png", b"\x89PNG\r\n\x1a\n" + bytes(5000))
    return buffer.getvalue()


def _xhtml(title: str, body: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml" '
        f'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>{title}</title></head>'
        f"<body>{body}</body></html>"
    )


def eml_file(*, html_only: bool = False) -> bytes:
    """A message with a Russian subject and body (plain and HTML, or HTML only) and two
    attachments."""
    message = EmailMessage()
    message["Subject"] = "Отпускные за июль"
    message["From"] = "Бухгалтерия <buh@example.com>"
    message["To"] = "Иван Петров <ivan@example.com>"
    message["Date"] = "Mon, 01 Jul 2024 10:15:00 +0300"
    plain = "Добрый день!\nОтпускные перечислены на карту.\nБухгалтерия"
    html = (
        "<html><body><p>Добрый день!</p>"
        "<p>Отпускные <b>перечислены</b> на карту.</p></body></html>"
    )
    if html_only:
        message.set_content(html, subtype="html")
    else:
        message.set_content(plain)
        message.add_alternative(html, subtype="html")
    message.add_attachment(
        b"%PDF-1.4 secret attachment text",
        maintype="application",
        subtype="pdf",
        filename="расчёт.pdf",
    )
    message.add_attachment("таблица", subtype="csv", filename="ведомость.csv")
    return bytes(message)

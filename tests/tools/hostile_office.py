"""Hostile office files: zip bombs of every zip-based format, sheets spanning millions of
cells, a deck of thousands of slides. Each is a few kilobytes on disk."""

from __future__ import annotations

import io
import re
import zipfile

from tests.tools.office_docgen import pptx_file, xlsx_file

BOMB_MEMBERS = {
    "docx": "word/document.xml",
    "xlsx": "xl/worksheets/sheet1.xml",
    "pptx": "ppt/slides/slide1.xml",
    "odt": "content.xml",
    "ods": "content.xml",
    "odp": "content.xml",
    "epub": "OEBPS/chapter1.xhtml",
}


def zip_bomb(kind: str, inflated_mb: int = 40) -> bytes:
    """A zip of the kind's usual layout whose main part inflates to `inflated_mb` MB."""
    buffer = io.BytesIO()
    chunk = b" " * (1024 * 1024)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("mimetype", "application/octet-stream")
        with archive.open(BOMB_MEMBERS[kind], "w") as member:
            for _ in range(inflated_mb):
                member.write(chunk)
    return buffer.getvalue()


def many_parts_zip(parts: int = 20_500) -> bytes:
    """A zip of many tiny members (each a few bytes): too many parts to open."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for n in range(parts):
            archive.writestr(f"x/{n}", b"")
    return buffer.getvalue()


def huge_sheet_xlsx() -> bytes:
    """A workbook whose first sheet has cells at A1 and J1000000 (ten million cells spanned,
    two filled), then an ordinary sheet."""
    return xlsx_file(
        {
            "Огромный": [["начало"]] + [[]] * 999_998 + [[None] * 9 + ["конец"]],
            "Обычный": [["Сотрудник", "Отпускные"], ["Иванова", 56000]],
        }
    )


def long_deck(slides: int) -> bytes:
    """A pptx of `slides` slides, made by copying one slide's part in the package (adding
    thousands of slides through the writer takes minutes)."""
    base = pptx_file([("Слайд", ["Текст слайда о премиях"], [], "")])
    source = zipfile.ZipFile(io.BytesIO(base))
    slide = source.read("ppt/slides/slide1.xml")
    slide_rels = source.read("ppt/slides/_rels/slide1.xml.rels")
    presentation = source.read("ppt/presentation.xml").decode()
    rels = source.read("ppt/_rels/presentation.xml.rels").decode()
    types = source.read("[Content_Types].xml").decode()
    ids, links, overrides = [], [], []
    for n in range(2, slides + 1):
        ids.append(f'<p:sldId id="{255 + n}" r:id="rIdS{n}"/>')
        links.append(
            f'<Relationship Id="rIdS{n}" Type="http://schemas.openxmlformats.org/'
            f'officeDocument/2006/relationships/slide" Target="slides/slide{n}.xml"/>'
        )
        overrides.append(
            f'<Override PartName="/ppt/slides/slide{n}.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.presentationml.slide+xml"/>'
        )
    presentation = re.sub(r"(</p:sldIdLst>)", "".join(ids) + r"\1", presentation)
    rels = rels.replace("</Relationships>", "".join(links) + "</Relationships>")
    types = types.replace("</Types>", "".join(overrides) + "</Types>")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            replaced = {
                "ppt/presentation.xml": presentation,
                "ppt/_rels/presentation.xml.rels": rels,
                "[Content_Types].xml": types,
            }.get(info.filename)
            out.writestr(info.filename, replaced or source.read(info.filename))
        for n in range(2, slides + 1):
            out.writestr(f"ppt/slides/slide{n}.xml", slide)
            out.writestr(f"ppt/slides/_rels/slide{n}.xml.rels", slide_rels)
    return buffer.getvalue()


def entity_bomb_odt() -> bytes:
    """An odt whose content declares nested XML entities ("billion laughs": a few hundred
    bytes that would expand to gigabytes)."""
    levels = ['<!ENTITY e0 "ха-ха-ха-ха-ха-ха-ха-ха-ха-ха">']
    levels += [f'<!ENTITY e{n} "{f"&e{n - 1};" * 10}">' for n in range(1, 10)]
    content = (
        f'<?xml version="1.0"?><!DOCTYPE office:document-content [{"".join(levels)}]>'
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
        ' xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body>'
        "<office:text><text:p>&e9;</text:p></office:text></office:body>"
        "</office:document-content>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        archive.writestr("content.xml", content)
    return buffer.getvalue()


def corner_to_corner_xls() -> bytes:
    """An xls with cells in its first and its last possible corner (65,536 rows × 256
    columns): its reader builds that whole grid, more than the worker's memory allows."""
    from tests.tools.office_docgen import xls_file  # noqa: PLC0415

    return xls_file({"Угол": [["начало"], *([[]] * 65_534), [*([None] * 255), "конец"]]})

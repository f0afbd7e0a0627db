"""Documents the tests generate: PDFs (with a Cyrillic text layer), docx, hostile files.

The Cyrillic PDF is written by hand: a simple font with a ToUnicode map gives PDF readers the
text without needing any Cyrillic font file on the machine.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path

_ALPHABET = "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдежзийклмнопрстуфхцчшщъыьэюяЁё№«»—"
_CODES = {ch: 0x80 + i for i, ch in enumerate(_ALPHABET)}


def _encode(text: str) -> bytes:
    raw = bytes(_CODES.get(ch, ord(ch) if ord(ch) < 0x7F else 0x3F) for ch in text)
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _cmap() -> bytes:
    pairs = [f"<{c:02X}> <{ord(ch):04X}>" for ch, c in _CODES.items()]
    pairs += [f"<{c:02X}> <{c:04X}>" for c in range(0x20, 0x7F)]
    return (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T def\n"
        "1 begincodespacerange <00> <FF> endcodespacerange\n"
        f"{len(pairs)} beginbfchar\n" + "\n".join(pairs) + "\nendbfchar endcmap\n"
        "CMapName currentdict /CMap defineresource pop end end"
    ).encode()


def assemble_pdf(objects: list[bytes]) -> bytes:
    """A PDF file from numbered object bodies (object 1 must be the catalog)."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def stream(data: bytes, *, compress: bool = False) -> bytes:
    if compress:
        data = zlib.compress(data, 9)
        return (
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data)
            + data
            + (b"\nendstream")
        )
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def text_pdf(pages: list[list[str]]) -> bytes:
    """A PDF with one text line per entry on each page; Cyrillic is fine."""
    kids = " ".join(f"{5 + 2 * i} 0 R" for i in range(len(pages)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 4 0 R >>",
        stream(_cmap()),
    ]
    for i, lines in enumerate(pages):
        ops = b"\n".join(_encode(line) + b" Tj T*" for line in lines)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {6 + 2 * i} 0 R >>".encode()
        )
        objects.append(stream(b"BT /F1 12 Tf 14 TL 50 780 Td\n" + ops + b"\nET"))
    return assemble_pdf(objects)


def reportlab_pdf(pages: list[list[str]]) -> bytes:
    """An English PDF made the way real software makes them."""
    from reportlab.lib.pagesizes import A4  # noqa: PLC0415  (dev-only dependency)
    from reportlab.pdfgen import canvas  # noqa: PLC0415

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    for lines in pages:
        y = 800
        for line in lines:
            pdf.drawString(50, y, line)
            y -= 16
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def slow_pdf(operators: int = 3_000_000) -> bytes:
    """A small file whose one page holds millions of text operators: parsing takes ages."""
    content = b"BT /F1 12 Tf " + b"(a) Tj " * operators + b"ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
        stream(content, compress=True),
    ]
    return assemble_pdf(objects)


def cyclic_pdf() -> bytes:
    """A page tree whose node lists itself as its own child."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
        b"<< /Type /Pages /Parent 2 0 R /Kids [3 0 R 2 0 R] /Count 2 >>",
    ]
    return assemble_pdf(objects)


def docx_file(paragraphs: list[str], table: list[list[str]]) -> bytes:
    """A docx with paragraphs, then a table, then a closing paragraph."""
    import docx  # noqa: PLC0415

    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    grid = document.add_table(rows=len(table), cols=len(table[0]))
    for r, row in enumerate(table):
        for c, value in enumerate(row):
            grid.cell(r, c).text = value
    document.add_paragraph("Конец документа.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def zip_bomb_docx(path: Path, inflated_mb: int = 40) -> None:
    """A docx whose document part inflates to `inflated_mb` MB of the same byte."""
    chunk = b" " * (1024 * 1024)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w") as member:
            for _ in range(inflated_mb):
                member.write(chunk)


def inflating_pdf(inflated_mb: int = 120) -> bytes:
    """A page whose small compressed content stream inflates to `inflated_mb` MB."""
    packer = zlib.compressobj(9)
    chunk = b"0" * (1024 * 1024)
    packed = b"".join(packer.compress(chunk) for _ in range(inflated_mb)) + packer.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream",
    ]
    return assemble_pdf(objects)

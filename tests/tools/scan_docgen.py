"""Scans for the OCR tests: text drawn into images with a TrueType font, and PDFs of those
images without a text layer."""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
NEEDS_TESSERACT = "needs Tesseract with Russian: apt-get install tesseract-ocr tesseract-ocr-rus"
NEEDS_FONT = f"needs the DejaVu font at {FONT}: apt-get install fonts-dejavu-core"


def tesseract_ready() -> bool:
    """Whether Tesseract is installed with Russian and English."""
    path = shutil.which("tesseract")
    if path is None:
        return False
    listed = subprocess.run([path, "--list-langs"], capture_output=True, check=False)
    return {"rus", "eng"} <= set(listed.stdout.decode("utf-8", "replace").split())


def text_image(lines: list[str], size: int = 40, fmt: str = "PNG") -> bytes:
    """A white page with the lines in black, `size` pixels high."""
    from PIL import Image, ImageDraw, ImageFont  # noqa: PLC0415

    font = ImageFont.truetype(str(FONT), max(size, 1))
    step = max(size * 2, 2)
    image = Image.new("L", (1600, step * len(lines) + 80), 255)
    draw = ImageDraw.Draw(image)
    for number, line in enumerate(lines):
        draw.text((40, 40 + number * step), line, font=font, fill=0)
    out = io.BytesIO()
    image.save(out, format=fmt)
    return out.getvalue()


def scan_pdf(pages: list[bytes | None]) -> bytes:
    """A PDF with one image per page (a blank page for None), and no text layer."""
    from reportlab.lib.utils import ImageReader  # noqa: PLC0415
    from reportlab.pdfgen import canvas  # noqa: PLC0415

    out = io.BytesIO()
    pdf = canvas.Canvas(out)
    for page in pages:
        if page is not None:
            reader = ImageReader(io.BytesIO(page))
            width, height = reader.getSize()
            pdf.drawImage(reader, 20, 800 - 560 * height / width, 560, 560 * height / width)
        pdf.showPage()
    pdf.save()
    return out.getvalue()


def png_header(width: int, height: int) -> bytes:
    """A PNG that claims `width`×`height` pixels but holds almost no data (a pixel bomb)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    data = zlib.compress(b"\0" * 1024)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )

"""Documents whose pages tell themselves apart in a picture, and how dark a picture is.

Page N of `shaded_pdf(count)` is black over the left N/(count+1) of its width, so the share of
dark pixels in its picture says which page was drawn; a TIFF's frames are shaded the same way.
"""

from __future__ import annotations

import io


def shade(page: int, count: int) -> float:
    """The share of page `page` (from 1) that is black."""
    return page / (count + 1)


def shaded_pdf(count: int, *, landscape: tuple[int, ...] = ()) -> bytes:
    """A PDF of `count` A4 pages, each black over its own share; pages in `landscape` lie on
    their side."""
    from reportlab.lib.pagesizes import A4  # noqa: PLC0415  (dev-only dependency)
    from reportlab.pdfgen import canvas  # noqa: PLC0415

    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4)
    for page in range(1, count + 1):
        width, height = (A4[1], A4[0]) if page in landscape else A4
        pdf.setPageSize((width, height))
        pdf.rect(0, 0, width * shade(page, count), height, stroke=0, fill=1)
        pdf.drawString(width - 80, height - 40, f"page {page}")
        pdf.showPage()
    pdf.save()
    return out.getvalue()


def shaded_tiff(count: int, size: tuple[int, int] = (600, 800)) -> bytes:
    """A multi-page TIFF, one frame per page, shaded like `shaded_pdf`."""
    from PIL import Image, ImageDraw  # noqa: PLC0415

    frames = []
    for page in range(1, count + 1):
        frame = Image.new("L", size, 255)
        ImageDraw.Draw(frame).rectangle(
            (0, 0, int(size[0] * shade(page, count)) - 1, size[1]), fill=0
        )
        frames.append(frame)
    out = io.BytesIO()
    frames[0].save(out, format="TIFF", save_all=True, append_images=frames[1:])
    return out.getvalue()


def strip_png(width: int, height: int) -> bytes:
    """A grey image of any shape, e.g. a long thin strip."""
    from PIL import Image  # noqa: PLC0415

    out = io.BytesIO()
    Image.new("L", (width, height), 128).save(out, format="PNG")
    return out.getvalue()


def darkness(picture: bytes) -> float:
    """The share of a picture's pixels that are dark."""
    from PIL import Image  # noqa: PLC0415

    with Image.open(io.BytesIO(picture)) as image:
        grey = image.convert("L")
    histogram = grey.histogram()
    return sum(histogram[:64]) / (grey.width * grey.height)


def picture_size(picture: bytes) -> tuple[int, int]:
    """Width and height of a JPEG, checking it is one."""
    from PIL import Image  # noqa: PLC0415

    with Image.open(io.BytesIO(picture)) as image:
        assert image.format == "JPEG"
        return image.size

"""Which route a file takes, by the suffix of its name.

Plain text, HTML and JSON are read in the bot's own process; every other supported kind is
parsed by the isolated worker (`tools.extract.formats.registry` maps those kinds to their parsers).
A kind names the format in messages ("this xlsx file ...").
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

WORKER_KINDS: Mapping[str, str] = MappingProxyType(
    {
        ".pdf": "pdf",
        ".docx": "docx",
        ".doc": "doc",
        ".xlsx": "xlsx",
        ".xlsm": "xlsx",
        ".xls": "xls",
        ".ods": "ods",
        ".pptx": "pptx",
        ".odp": "odp",
        ".odt": "odt",
        ".rtf": "rtf",
        ".epub": "epub",
        ".eml": "eml",
        ".png": "image",
        ".jpg": "image",
        ".jpeg": "image",
        ".tif": "image",
        ".tiff": "image",
        ".webp": "image",
    }
)
"""Suffix → kind, for the formats parsed in the isolated worker."""
_WORKER_KIND_NAMES = frozenset(WORKER_KINDS.values())

HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
_UNSUPPORTED = (
    "gif bmp heic ico svgz mp3 wav ogg flac m4a mp4 mov avi mkv "
    "webm zip rar 7z gz tgz bz2 xz tar exe dll so bin dmg iso ppt pps xlsb odg odf "
    "sqlite db pyc class jar woff woff2 ttf otf msg mobi"
)
UNSUPPORTED_SUFFIXES = frozenset("." + s for s in _UNSUPPORTED.split(" "))
SUPPORTED = (
    "txt, md, csv, json, html, pdf, docx, doc, xlsx, xls, ods, pptx, odp, odt, rtf, epub, eml, "
    "scans (png, jpg, tiff, webp, read by OCR where Tesseract is installed) and other plain text"
)
"""The supported formats, as hints and admins' texts name them."""


def kind_of(path: Path) -> str:
    """The extraction route for a file name: a worker kind (pdf, xlsx, …), html, json, text
    or unsupported."""
    suffix = path.suffix.lower()
    worker = WORKER_KINDS.get(suffix)
    if worker is not None:
        return worker
    if suffix in HTML_SUFFIXES:
        return "html"
    if suffix == ".json":
        return "json"
    if suffix in UNSUPPORTED_SUFFIXES:
        return "unsupported"
    return "text"


def in_worker(kind: str) -> bool:
    """Whether a kind is parsed in the isolated worker (and costly enough to cache when the
    indexer reads it)."""
    return kind in _WORKER_KIND_NAMES


OCR_KINDS = frozenset({"image", "pdf"})
"""Kinds that may be scans, recognised by OCR: the index gives them a longer deadline."""

PAGED_KINDS = frozenset({"image", "pdf"})
"""Kinds with pages that can be shown as pictures: PDFs and scans (a TIFF's frames)."""


def has_pages(path: str) -> bool:
    """Whether a file, by its name, has pages that can be shown as pictures."""
    return kind_of(Path(path)) in PAGED_KINDS

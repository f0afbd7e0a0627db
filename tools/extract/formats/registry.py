"""Kind → parser, for every kind the isolated worker reads.

Imported only by the worker. A new kind is a parser module beside the others, a line here and
a suffix in `tools.extract.formats.kinds`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from tools.extract.formats.base import Parser
from tools.extract.formats.epub import epub_text
from tools.extract.formats.images import image_text
from tools.extract.formats.legacy import doc_text
from tools.extract.formats.mail import eml_text
from tools.extract.formats.odf import odp_text, odt_text
from tools.extract.formats.pdf import pdf_text
from tools.extract.formats.rtf import rtf_text
from tools.extract.formats.sheets import ods_text, xls_text, xlsx_text
from tools.extract.formats.slides import pptx_text
from tools.extract.formats.word import docx_text

PARSERS: Mapping[str, Parser] = MappingProxyType(
    {
        "pdf": pdf_text,
        "docx": docx_text,
        "xlsx": xlsx_text,
        "xls": xls_text,
        "ods": ods_text,
        "pptx": pptx_text,
        "odp": odp_text,
        "odt": odt_text,
        "rtf": rtf_text,
        "epub": epub_text,
        "eml": eml_text,
        "doc": doc_text,
        "image": image_text,
    }
)


def parser_for(kind: str) -> Parser | None:
    """The parser of a kind, or None for a kind the worker does not read."""
    return PARSERS.get(kind)

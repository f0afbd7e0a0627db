"""Zip-based formats (docx, xlsx, pptx, odt, ods, odp, epub) opened only after a bomb check.

Every member's declared size is checked before a parser inflates anything: how many members,
how much they unpack to in all, and how far any large one inflates beyond its packed size.
Members are read through a bounded reader too, in case a header lies about its size.
"""

from __future__ import annotations

import io
import zipfile

from tools.extract.formats.base import FormatError

MAX_MEMBERS = 20_000
MAX_UNPACKED = 200 * 1024 * 1024
MAX_RATIO = 200
RATIO_CHECKED_ABOVE = 1024 * 1024
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_CHUNK = 1024 * 1024


def check_zip(data: bytes, kind: str) -> None:
    """Refuse a zip bomb (or a file that is no zip at all) before a parser inflates anything."""
    open_zip(data, kind).close()


def open_zip(data: bytes, kind: str) -> zipfile.ZipFile:
    """The archive of a zip-based document, checked for bombs; the caller closes it."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError):
        if data.startswith(_OLE_MAGIC):
            msg = f"the {kind} file is password-protected (or an old binary file renamed)"
            raise FormatError(msg) from None
        raise FormatError(f"the {kind} file is damaged (not a zip archive)") from None
    try:
        _check_members(archive.infolist(), kind)
    except FormatError:
        archive.close()
        raise
    return archive


def _check_members(members: list[zipfile.ZipInfo], kind: str) -> None:
    if len(members) > MAX_MEMBERS:
        raise FormatError(f"the {kind} file has too many parts (over {MAX_MEMBERS:,})")
    total = 0
    for info in members:
        total += info.file_size
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > RATIO_CHECKED_ABOVE and ratio > MAX_RATIO:
            raise FormatError(f"the {kind} file unpacks to far more than its size (zip bomb)")
    if total > MAX_UNPACKED:
        mb = MAX_UNPACKED // (1024 * 1024)
        raise FormatError(f"the {kind} file unpacks to more than {mb} MB")


def read_member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """One member's bytes, at most `limit` of them: more is a `FormatError`, whatever the
    header claims. A missing member is a `KeyError`."""
    out = bytearray()
    with archive.open(name) as member:
        while chunk := member.read(_CHUNK):
            out += chunk
            if len(out) > limit:
                mb = limit / (1024 * 1024)
                raise FormatError(f"a part of the document unpacks to more than {mb:g} MB")
    return bytes(out)

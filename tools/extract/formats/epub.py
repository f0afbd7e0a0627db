"""EPUB e-books: chapters in reading (spine) order, each after `--- chapter N: Title ---`.

Read with the standard zip module and defusedxml for the package files (container, OPF, the
EPUB 2 NCX) and the project's HTML-to-text for the chapters and the EPUB 3 table of contents.
Only the spine's documents are read: pictures, fonts and styles are never inflated. Titles
come from the table of contents, else from a chapter's first heading.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from urllib.parse import unquote, urldefrag
from xml.etree.ElementTree import Element

from selectolax.lexbor import LexborHTMLParser

from tools.extract.formats.archive import open_zip, read_member
from tools.extract.formats.base import Budget, FormatError, Lines, cut_note, plain
from tools.extract.formats.safexml import local, parse
from tools.extract.htmltext import html_text

MAX_CHAPTERS = 2_000
MAX_PART_BYTES = 32 * 1024 * 1024
_HTML_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/xml"})
_DECLARED = re.compile(rb"""^\s*<\?xml[^>]*encoding=["']([A-Za-z0-9._-]+)["']""")


class _Item:
    """One entry of the package's manifest."""

    def __init__(self, path: str, media_type: str, properties: str) -> None:
        self.path = path
        self.media_type = media_type
        self.properties = properties.split()


def epub_text(data: bytes, budget: Budget) -> str:
    """Every chapter's text in reading order, after its marker."""
    with open_zip(data, "epub") as archive:
        package_path = _package_path(archive)
        package = parse(_member(archive, package_path), "epub")
        items = _manifest(package, posixpath.dirname(package_path))
        spine, toc_id = _spine(package)
        titles = _titles(archive, items, toc_id)
        return _chapters(archive, items, spine, titles, budget)


def _member(archive: zipfile.ZipFile, path: str) -> bytes:
    try:
        return read_member(archive, path, MAX_PART_BYTES)
    except KeyError:
        raise FormatError(f"the epub file is damaged (no {posixpath.basename(path)})") from None


def _package_path(archive: zipfile.ZipFile) -> str:
    container = parse(_member(archive, "META-INF/container.xml"), "epub")
    for element in container.iter():
        if local(element.tag) == "rootfile" and element.get("full-path"):
            return str(element.get("full-path"))
    raise FormatError("the epub file is damaged (no package document)")


def _manifest(package: Element, base: str) -> dict[str, _Item]:
    items: dict[str, _Item] = {}
    for element in package.iter():
        if local(element.tag) == "item" and element.get("id") and element.get("href"):
            path = _resolve(base, element.get("href", ""))
            media = element.get("media-type", "")
            items[element.get("id", "")] = _Item(path, media, element.get("properties", ""))
    return items


def _spine(package: Element) -> tuple[list[str], str | None]:
    for element in package.iter():
        if local(element.tag) == "spine":
            ids = [ref.get("idref", "") for ref in element if local(ref.tag) == "itemref"]
            return ids, element.get("toc")
    raise FormatError("the epub file is damaged (no reading order)")


def _resolve(base: str, href: str) -> str:
    """A manifest or table-of-contents link as a path inside the archive."""
    return posixpath.normpath(posixpath.join(base, unquote(urldefrag(href).url)))


def _titles(
    archive: zipfile.ZipFile, items: dict[str, _Item], toc_id: str | None
) -> dict[str, str]:
    """Chapter path → title, from the EPUB 3 navigation document or the EPUB 2 NCX."""
    titles: dict[str, str] = {}
    nav = next((item for item in items.values() if "nav" in item.properties), None)
    ncx = items.get(toc_id or "")
    try:
        if nav is not None:
            tree = LexborHTMLParser(_decode(_member(archive, nav.path)))
            base = posixpath.dirname(nav.path)
            for link in tree.css("nav a"):
                href = link.attributes.get("href") or ""
                titles.setdefault(_resolve(base, href), plain(link.text()))
        elif ncx is not None:
            root = parse(_member(archive, ncx.path), "epub")
            base = posixpath.dirname(ncx.path)
            for point in root.iter():
                if local(point.tag) == "navPoint":
                    _ncx_title(point, base, titles)
    except FormatError:
        return {}  # a broken table of contents costs the titles only
    return titles


def _ncx_title(point: Element, base: str, titles: dict[str, str]) -> None:
    label = next((e for e in point.iter() if local(e.tag) == "text"), None)
    content = next((e for e in point if local(e.tag) == "content"), None)
    if label is not None and content is not None and content.get("src"):
        titles.setdefault(_resolve(base, content.get("src", "")), plain(label.text or ""))


def _chapters(
    archive: zipfile.ZipFile,
    items: dict[str, _Item],
    spine: list[str],
    titles: dict[str, str],
    budget: Budget,
) -> str:
    lines = Lines(budget.max_chars)
    for number, idref in enumerate(spine, start=1):
        if number > MAX_CHAPTERS:
            lines.add(
                cut_note(f"only the first {MAX_CHAPTERS:,} of {len(spine):,} chapters are read")
            )
            break
        item = items.get(idref)
        if item is None or item.media_type not in _HTML_TYPES:
            continue
        try:
            raw = _decode(read_member(archive, item.path, MAX_PART_BYTES))
        except KeyError:
            continue  # listed but missing: nothing to read
        except FormatError:
            lines.add(f"--- chapter {number} ---")
            lines.add(f"[this chapter is not read: it is over {MAX_PART_BYTES // 1048576} MB]")
            continue
        text = html_text(raw, title=False)
        if not text:
            continue
        title = titles.get(item.path) or _first_heading(raw)
        lines.add(f"--- chapter {number}: {title} ---" if title else f"--- chapter {number} ---")
        for line in text.split("\n"):
            lines.add(line)
        if lines.full:
            break
    return lines.text()


def _first_heading(raw: str) -> str:
    heading = LexborHTMLParser(raw).css_first("h1, h2, h3")
    return plain(heading.text()) if heading is not None else ""


def _decode(raw: bytes) -> str:
    """An XHTML part's text, in the encoding its XML declaration names (UTF-8 otherwise)."""
    declared = _DECLARED.match(raw[:200])
    encoding = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        return raw.decode(encoding, errors="replace")
    except LookupError:
        return raw.decode("utf-8", errors="replace")

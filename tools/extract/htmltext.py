"""Visible text of an HTML page, one line per block: for .html files in the bot's process and
for HTML inside other documents (e-book chapters, e-mail bodies) in the worker. Headings
(`<h1>`…`<h6>`) come out as Markdown `#` lines, so a page has sections (`tools.extract.places`)
like a Markdown or Word document."""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser

_HTML_BLOCKS = (
    "p, div, br, li, tr, h1, h2, h3, h4, h5, h6, table, section, article, header, footer, "
    "pre, blockquote, dt, dd, caption, hr"
)
_HEADINGS = "h1, h2, h3, h4, h5, h6"
_SPACES = re.compile(r"[ \t\u00a0]+")


def html_text(raw: str, *, title: bool = True) -> str:
    """Visible text of an HTML page: one line per block, table cells joined with ` | `,
    headings as `#` lines.

    `title` puts the page's <title> first (a chapter of a book repeats the book's title
    there, so chapters leave it out).
    """
    tree = LexborHTMLParser(raw)
    title_node = tree.css_first("title") if title else None
    heading = title_node.text(strip=True) if title_node is not None else ""
    for node in tree.css("script, style, noscript, template, head"):
        node.decompose()
    for node in tree.css(_HEADINGS):
        level = int((node.tag or "h1")[1])
        if node.text(strip=True):
            node.insert_before(f"\n{'#' * level} ")
    for node in tree.css(_HTML_BLOCKS):
        node.insert_after("\n")
    for node in tree.css("td, th"):
        node.insert_after(" | ")
    body = tree.body or tree.root
    text = body.text(separator="", strip=False) if body is not None else ""
    lines = [_SPACES.sub(" ", line).strip().removesuffix("|").strip() for line in text.split("\n")]
    if heading:
        lines.insert(0, heading)
    return "\n".join(line for line in lines if line)

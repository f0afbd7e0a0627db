"""Errors the model should see: each becomes an `{"error": ..., "hint": ...}` tool result.

Messages name paths relative to the sandbox only; a host path never reaches the model.
"""

from __future__ import annotations

from typing import Literal


class ToolError(Exception):
    """A problem with a tool call that the model can act on."""

    default_hint = "Check the arguments and try again."

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint if hint is not None else self.default_hint


SandboxReason = Literal[
    "absolute", "escape", "hidden", "invalid", "too_long", "not_found", "not_a_file"
]


class SandboxError(ToolError):
    """A path the jail refuses: outside the sandbox, hidden, malformed or missing."""

    default_hint = "Use a path relative to the documents folder, as list_files shows it."

    def __init__(self, message: str, reason: SandboxReason, hint: str | None = None) -> None:
        super().__init__(message, hint)
        self.reason = reason


class PathNotFoundError(SandboxError):
    """The path is allowed but nothing is there."""

    default_hint = "Use search_files or list_files to find the exact path."

    def __init__(self, rel: str, hint: str | None = None) -> None:
        super().__init__(f"'{rel}' does not exist", "not_found", hint)
        self.rel = rel


class ExtractionError(ToolError):
    """The file exists but its text cannot be given: binary, too big, broken or too slow."""

    default_hint = "Try another file; search_files finds documents with readable text."


class ContentError(ExtractionError):
    """The file's content itself is unreadable (binary, too big, broken, too slow to parse).

    Such a verdict holds until the file changes, so it is cached like extracted text.
    """


class PageError(ToolError):
    """A page that cannot be shown as an image: not there, or not in a paged document."""

    default_hint = "Only pages of PDFs and scans can be shown."


class NoSuchPageError(PageError):
    """The document has fewer pages than asked for; `pages` is how many (None: unknown)."""

    def __init__(self, page: int, pages: int | None = None) -> None:
        counted = "" if pages is None else f" (it has {pages})"
        super().__init__(f"the document has no page {page}{counted}")
        self.page = page
        self.pages = pages


class NotPagedError(PageError):
    """The file is neither a PDF nor a scan, so it has no pages to render."""

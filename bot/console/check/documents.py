"""What the bot will find in SANDBOX_DIR: how many documents, and which it cannot read, and why.

Every document goes through the same jail and extractor the tools use, so a file reported
unreadable here is one the model can neither search nor read. A large folder is read for a
bounded time only; the line then says it was a sample.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from bot.console.check.outcome import Outcome, failed, passed, shown
from tools.errors import ExtractionError, SandboxError
from tools.extract.extractor import Extractor, Limits
from tools.jail.documents_folder import documents_folder_problem
from tools.jail.sandbox import Sandbox

SUBJECT = "documents"
_SHOWN_REASONS = 4

# Known reasons, by a phrase of the extractor's message: (one file, several files).
_KINDS = (
    (
        "needs OCR, which is not installed",
        (
            "scan that needs OCR, which is not installed here",
            "scans that need OCR, which is not installed here",
        ),
    ),
    ("no text recognised", ("scan with no legible text", "scans with no legible text")),
    ("no text layer", ("scanned PDF without a text layer", "scanned PDFs without a text layer")),
    ("password-protected", ("encrypted PDF", "encrypted PDFs")),
    ("the PDF is damaged", ("damaged PDF", "damaged PDFs")),
    ("the docx file", ("damaged docx file", "damaged docx files")),
    ("the image is damaged", ("damaged image", "damaged images")),
    ("too large to recognise", ("image too large to recognise", "images too large to recognise")),
    ("limit for reading", ("file over MAX_FILE_MB", "files over MAX_FILE_MB")),
    ("files are not supported", ("file of an unsupported type", "files of unsupported types")),
    ("binary file", ("binary file", "binary files")),
    (
        "encoding could not be recognised",
        ("text in an unknown encoding", "texts in unknown encodings"),
    ),
    ("took too long", ("file too slow to read", "files too slow to read")),
    ("too large or complex", ("file too complex to read", "files too complex to read")),
    ("permission", ("file without read permission", "files without read permission")),
)


def check_documents(
    sandbox_dir: Path,
    data_dir: Path,
    *,
    max_file_mb: float,
    budget_s: float = 60.0,
    extract_timeout: float = 30.0,
) -> Outcome:
    """Read every visible document of `sandbox_dir` (blocking), for `budget_s` at most."""
    problem = documents_folder_problem(sandbox_dir)
    if problem is not None:
        return failed(SUBJECT, problem)
    name = shown(sandbox_dir)
    sandbox = Sandbox(sandbox_dir, reserved=(data_dir.absolute(),))
    try:
        sandbox.scan(strict=True)
    except OSError as exc:
        return failed(SUBJECT, f"{name} cannot be read ({exc.strerror or exc})")
    limits = Limits(max_file_bytes=int(max_file_mb * 1024 * 1024), timeout=extract_timeout)
    extractor = Extractor(limits, None, sandbox.root)
    try:
        count, reasons, complete = _read_all(sandbox, extractor, budget_s)
    finally:
        extractor.close()
    return _outcome(name, count, reasons, complete, budget_s)


def _read_all(
    sandbox: Sandbox, extractor: Extractor, budget_s: float
) -> tuple[int, Counter[str], bool]:
    """How many documents were read, why those that failed did, and whether all were read."""
    deadline = time.monotonic() + budget_s
    count = 0
    reasons: Counter[str] = Counter()
    for entry in sandbox.walk():
        if entry.is_dir:
            continue
        if count and time.monotonic() > deadline:
            return count, reasons, False
        count += 1
        try:
            extractor.extract(sandbox.resolve(entry.rel), background=True)
        except (ExtractionError, SandboxError) as exc:
            reasons[exc.message] += 1
    return count, reasons, True


def _outcome(
    folder: str, count: int, reasons: Counter[str], complete: bool, budget_s: float
) -> Outcome:
    if count == 0:
        return passed(SUBJECT, f"none yet in {folder}; copy them there or send them to the bot")
    found = f"{count} in {folder}"
    if not complete:
        found = f"{count} read in {folder} within {budget_s:g} s (a sample; there are more)"
    unreadable = sum(reasons.values())
    if not unreadable:
        return passed(SUBJECT, f"{found}, all readable")
    text = f"{found}, {unreadable} unreadable ({describe_reasons(reasons)})"
    if unreadable == count:
        return failed(SUBJECT, f"{text}: the bot has no text to answer from")
    return passed(SUBJECT, text)


def describe_reasons(reasons: Counter[str]) -> str:
    """`2 scanned PDFs without a text layer, 1 encrypted PDF`, the commonest first."""
    grouped: Counter[tuple[str, str]] = Counter()
    for message, times in reasons.items():
        grouped[_kind(message)] += times
    parts = [
        f"{times} {one if times == 1 else several}"
        for (one, several), times in grouped.most_common(_SHOWN_REASONS)
    ]
    rest = sum(times for _, times in grouped.most_common()[_SHOWN_REASONS:])
    if rest:
        parts.append(f"{rest} for other reasons")
    return ", ".join(parts)


def _kind(message: str) -> tuple[str, str]:
    for phrase, names in _KINDS:
        if phrase in message:
            return names
    return f"file: {message}", f"files: {message}"

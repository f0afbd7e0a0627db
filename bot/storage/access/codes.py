"""Pairing codes: their shape, how they are made, and how they are kept (only as a hash).

A code is 8 characters from an alphabet without look-alikes (no 0 and O, no 1, I and L), at
least one of them a letter and one a digit, shown as `ABCD-2345`. The shape is what tells a
code from ordinary text: a stranger's message counts as a wrong code only when it has it, and
an 8-letter word or an 8-digit number never does. Any case, with or without the hyphen (or a
space) in the middle, reads as the same code.

Codes are stored as a SHA-256 hash and compared as hashes with `hmac.compare_digest`, so the
database never holds a code and a comparison takes the same time whatever the guess.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 8
LIFETIME_S = 600.0
"""A code works for 10 minutes after it is made."""

_SHAPE = re.compile(r"[A-Za-z0-9]{4}[-\s]?[A-Za-z0-9]{4}")
_DIGITS = frozenset("23456789")


def _mixed(raw: str) -> bool:
    return any(ch in _DIGITS for ch in raw) and any(ch not in _DIGITS for ch in raw)


def new_code() -> str:
    """A fresh random code, as shown to people: `ABCD-2345`."""
    while True:
        raw = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
        if _mixed(raw):
            return f"{raw[: LENGTH // 2]}-{raw[LENGTH // 2 :]}"


def normalize(text: str) -> str | None:
    """The code `text` spells (`ABCD2345`), or None when it does not look like a code."""
    stripped = text.strip()
    if not _SHAPE.fullmatch(stripped):
        return None
    raw = re.sub(r"[-\s]", "", stripped).upper()
    if any(ch not in ALPHABET for ch in raw) or not _mixed(raw):
        return None
    return raw


def code_hash(raw: str) -> str:
    """What is stored for a normalized code."""
    return hashlib.sha256(f"docs-bot pairing code {raw}".encode()).hexdigest()


def same_hash(candidate: str, stored: str) -> bool:
    """Whether two hashes are equal, in time that does not depend on where they differ."""
    return hmac.compare_digest(candidate.encode("ascii"), stored.encode("ascii"))

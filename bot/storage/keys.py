"""The 64-bit numbers PostgreSQL advisory locks are taken on, derived from text.

The numbers must be the same in every process and on every machine, so they come from a hash
of the text (BLAKE2b), never from Python's `hash()`, which changes from process to process.
A namespace keeps the kinds of key apart: a conversation key never meets a worker's id.
"""

from __future__ import annotations

import hashlib

MIGRATION_LOCK = 0x646F63735F6D6967
"""Held while the schema is checked and upgraded, so workers starting together take turns."""


def advisory_key(namespace: str, text: str) -> int:
    """A signed 64-bit lock number for `text` in `namespace`, stable across processes."""
    digest = hashlib.blake2b(f"{namespace}\0{text}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)

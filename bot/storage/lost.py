"""What a query raises when its connection or server is gone (or the server refused it)."""

from __future__ import annotations

import asyncpg

LOST: tuple[type[Exception], ...] = (
    OSError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
)
"""Caught together wherever a lost connection is told apart from a bug."""

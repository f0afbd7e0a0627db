"""The vector side's files in DATA_DIR and its progress: names the toolbox and the bot need
before (and without) the vector side's libraries loading."""

from __future__ import annotations

from dataclasses import dataclass

CACHE_FILE = "vectors.sqlite3"
"""The SQLite embeddings cache's file name in DATA_DIR."""
STORE_FOLDER = "vectors.index"
"""The vector index's folder in DATA_DIR."""


@dataclass(frozen=True)
class VectorStatus:
    """How far the vector index is, for /status, the log and metrics. `passages_total` is an
    estimate from the documents' sizes until each document is cut."""

    configured: bool
    passages_done: int = 0
    passages_total: int = 0
    calls: int = 0
    last_error: str | None = None
    looks: int = 0
    """Times the documents were compared with the vectors held (only after the keyword index
    changed)."""

"""The SQLite build the search index runs on: a current one bundled with `sqlean.py`.

The standard library's SQLite can be years old (3.40 on Debian 12); FTS5 learnt to delete rows
from a contentless table (`contentless_delete=1`) in 3.43, and without that the index has to
keep a second copy of every document's terms. The bundled build has the same DB-API as the
standard `sqlite3` module, so it stands in for it; its extensions stay off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3 as sqlite
else:
    import sqlean as sqlite

__all__ = ["sqlite"]

"""Read-only tools over the documents folder: search_files, read_file, list_files.

Its names load their modules on first use (`__getattr__`): `tools.results` or `tools.scope`
alone do not start the toolbox, the indexer and their libraries.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tools.indexer import FileReport, IndexStatus, ReindexReport
    from tools.sandbox import Sandbox
    from tools.toolbox import Toolbox, build_toolbox

_HOMES = {
    "FileReport": "tools.indexer",
    "IndexStatus": "tools.indexer",
    "ReindexReport": "tools.indexer",
    "Sandbox": "tools.sandbox",
    "Toolbox": "tools.toolbox",
    "build_toolbox": "tools.toolbox",
}
"""Each public name and the module it lives in."""

INDEX_FILE = "search-index.sqlite3"
"""The search index's file name in DATA_DIR (DATA_DIR's own layout names it from here)."""
INDEX_TERMS = "search-index.terms"
"""The folder beside it that holds the index's terms."""

__all__ = [
    "INDEX_FILE",
    "INDEX_TERMS",
    "FileReport",
    "IndexStatus",
    "ReindexReport",
    "Sandbox",
    "Toolbox",
    "build_toolbox",
]


def __getattr__(name: str) -> Any:
    """Load a public name's module when the name is first used."""
    home = _HOMES.get(name)
    if home is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value

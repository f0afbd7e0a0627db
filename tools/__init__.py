"""Read-only tools over the documents folder: search_files, read_file, list_files.

Read it from the door, top to bottom; imports point down this list and never back up, and
nothing in here imports `tools` itself (the names below are for the bot, the tests and benches):

- `__main__`: `python -m tools search|read|list|reindex`, the JSON the model would get;
- `toolbox`: the toolbox the agent uses, building the jail, the extractor and the index;
- the three tools, none importing another: `search` (search_files over the index), `reading`
  (read_file, one page of a document) and `listing` (list_files, a folder's entries);
- what the tools share: `tool` (one tool as one object, and the three tools' argument
  models), `results` (a call's result), `cutting` (a result cut to a budget), `paths` (modification
  times and close-name guesses), `config` (the settings the tools need);
- `vectors/`: search by meaning (passages, their embeddings, the vector index, the fusion of
  keyword and meaning results);
- `index/`: the search index (on disk, its terms, its build, watching the folder);
- `extract/`: text from documents, risky formats parsed in an isolated worker (`formats/`);
- `jail/`: the jail every path goes through, the scope that narrows it, the documents folder;
- the floor: `errors` (the errors the model sees), `jsontext` (the JSON text results are
  written as), `places` (the page, sheet, slide, chapter or heading a line of a document
  lies in, and the short text that names it) and `sqlite` (the one way an SQLite file is
  opened, here and in the bot's stores, and how a damaged one is recovered).

Its names load their modules on first use (`__getattr__`): `tools.results` or
`tools.jail.scope` alone do not start the toolbox, the indexer and their libraries.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tools.index.indexer import FileReport, IndexStatus, ReindexReport
    from tools.index.store import INDEX_FILE, INDEX_TERMS
    from tools.jail.sandbox import Sandbox
    from tools.toolbox import Toolbox, build_toolbox

_HOMES = {
    "FileReport": "tools.index.indexer",
    "IndexStatus": "tools.index.indexer",
    "ReindexReport": "tools.index.indexer",
    "INDEX_FILE": "tools.index.store",
    "INDEX_TERMS": "tools.index.store",
    "Sandbox": "tools.jail.sandbox",
    "Toolbox": "tools.toolbox",
    "build_toolbox": "tools.toolbox",
}
"""Each public name and the module it lives in."""

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

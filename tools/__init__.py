"""Read-only tools over the documents folder: search_files, read_file, list_files."""

from tools.indexer import FileReport, IndexStatus, ReindexReport
from tools.sandbox import Sandbox
from tools.toolbox import INDEX_FILE, Toolbox, build_toolbox

__all__ = [
    "INDEX_FILE",
    "FileReport",
    "IndexStatus",
    "ReindexReport",
    "Sandbox",
    "Toolbox",
    "build_toolbox",
]

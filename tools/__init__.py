"""Read-only tools over the documents folder: search_files, read_file, list_files."""

from tools.indexer import FileReport, IndexStatus, ReindexReport
from tools.sandbox import Sandbox
from tools.toolbox import Toolbox, build_toolbox

__all__ = [
    "FileReport",
    "IndexStatus",
    "ReindexReport",
    "Sandbox",
    "Toolbox",
    "build_toolbox",
]

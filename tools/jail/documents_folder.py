"""What is wrong with the documents folder (SANDBOX_DIR), in the one wording every front door
uses: `python -m bot run` warns with it, `python -m bot check` fails with it, and
`python -m tools` stops with it, so an admin meets the same line wherever they look.
"""

from __future__ import annotations

from pathlib import Path


def shown(path: Path) -> str:
    """A folder as the admin wrote it: `./sandbox` rather than the bare `sandbox`."""
    text = str(path)
    return text if path.is_absolute() or text.startswith(".") else f"./{text}"


def documents_folder_problem(folder: Path) -> str | None:
    """Why `folder` cannot be read as the documents folder; None when it is a folder."""
    if folder.is_dir():
        return None
    name = shown(folder)
    if folder.exists():
        return f"the documents folder {name} is a file, not a folder; set SANDBOX_DIR to a folder"
    return f"the documents folder {name} does not exist; create it or set SANDBOX_DIR"

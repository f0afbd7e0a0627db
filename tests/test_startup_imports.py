"""Start-up imports only what the first update needs: document parsers load when a document is
read (in the extraction worker), never on the way to the first getUpdates.

Checked in a fresh interpreter, so nothing an earlier test imported can hide an import.
"""

from __future__ import annotations

import json
import subprocess
import sys

STARTUP_MODULES = (
    "bot.__main__",
    "bot.services",
    "bot.telegram.app",
    "bot.telegram.run",
)
"""What `python -m bot` imports before it polls: the entrance, the services, the Telegram wing."""

NOT_AT_STARTUP = (
    "pypdf",
    "pypdfium2",
    "PIL",
    "docx",
    "pptx",
    "python_calamine",
    "striprtf",
    "odf",
    "reportlab",
    "tantivy",
)
"""Document parsers, scanned-page tools and engines the running bot does not load up front."""


def _loaded_after(modules: tuple[str, ...]) -> set[str]:
    code = (
        "import importlib, json, sys\n"
        f"for name in {list(modules)!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(done.stdout))


def test_the_start_up_path_loads_no_document_parser() -> None:
    loaded = _loaded_after(STARTUP_MODULES)
    assert "aiogram" in loaded  # the check sees the real start-up path
    heavy = sorted(m for m in loaded if m.split(".")[0] in NOT_AT_STARTUP)
    assert heavy == []

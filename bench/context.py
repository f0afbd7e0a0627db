"""What every benchmark gets: where to put its files, how thorough to be, the interpreter."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Context:
    """Shared by the runner and the worker processes.

    `workdir` is the run's temp folder: corpora are generated there once and reused by every
    benchmark of the run; each benchmark makes its own data folders below it.
    """

    workdir: Path
    quick: bool
    python: str = sys.executable

    def child_env(self, **extra: str) -> dict[str, str]:
        """The environment for a subprocess of ours: the repo importable, no stray secrets."""
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"BOT_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL", "TELEGRAM_API_BASE"}
        }
        env["PYTHONPATH"] = str(REPO_ROOT)
        env.update(extra)
        return env

    def scratch(self, name: str) -> Path:
        """A fresh, empty folder under the workdir for one benchmark's own files.

        Emptied first, so a reused workdir never carries history or an index from a previous
        run into this one.
        """
        path = self.workdir / "scratch" / name
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True)
        return path

"""The ripgrep reference: found or installed from Debian's packages, then timed per query."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Ripgrep:
    """Where `rg` is, and how it got there (for the table's notes)."""

    path: str | None
    how: str


def _apt(*args: str, timeout_s: float) -> bool:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        done = subprocess.run(
            ["apt-get", *args], env=env, capture_output=True, timeout=timeout_s, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def ensure_ripgrep() -> Ripgrep:
    """`rg` on PATH, installing the Debian package when missing; never raises."""
    found = shutil.which("rg")
    if found:
        return Ripgrep(found, f"ripgrep found at {found}")
    if shutil.which("apt-get") is None:
        return Ripgrep(None, "ripgrep is not installed and apt-get is not available")
    print("[bench] ripgrep is missing: installing it with apt-get install -y ripgrep", flush=True)
    if not _apt("install", "-y", "ripgrep", timeout_s=300):
        _apt("update", timeout_s=300)
        _apt("install", "-y", "ripgrep", timeout_s=300)
    found = shutil.which("rg")
    if found:
        return Ripgrep(found, "ripgrep was missing; installed by this run with apt-get")
    return Ripgrep(None, "ripgrep is missing and apt-get could not install it")


def version(rg: str) -> str:
    """The first line of `rg --version`."""
    done = subprocess.run([rg, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.splitlines()[0] if done.stdout else "ripgrep (version unknown)"


def search_args(rg: str, root: Path, words: list[str], glob: str | None) -> list[str]:
    """`rg -i -l` for words (any of them matches a line), `rg --files --iglob` for a glob."""
    if glob is not None:
        return [rg, "--files", "--iglob", glob, str(root)]
    args = [rg, "-i", "-l"]
    for word in words:
        args += ["-e", word]
    return [*args, str(root)]


def timed_search(command: list[str]) -> tuple[float, int]:
    """Wall time in ms of one full scan, and the number of files it listed."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    elapsed = (time.perf_counter() - started) * 1000.0
    return elapsed, len(done.stdout.splitlines())

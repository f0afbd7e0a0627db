"""The jail: the one place that turns a path from the model into a real path.

Every tool path goes through `Sandbox.resolve`. It refuses absolute paths, `..` that leaves the
root, NUL and other malformed input, over-long paths, hidden parts, the bot's own data folder,
and symlinks whose real target lies outside the root (or on something hidden). Messages quote
only what the model sent, shortened, and never a host path.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tools.errors import PathNotFoundError, SandboxError
from tools.jsontext import BIDI_CONTROLS

MAX_PATH_CHARS = 1024
MAX_PART_BYTES = 255
_DRIVE = re.compile(r"^[A-Za-z]:")
_UNPRINTABLE = re.compile(f"[\\x00-\\x1f\\x7f{BIDI_CONTROLS}]")


def shown(rel: str, limit: int = 120) -> str:
    """A model-supplied path made safe to quote back: no control characters, bounded length."""
    text = _UNPRINTABLE.sub("?", rel)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_hidden_name(name: str) -> bool:
    """Dot names are private to the host (`.env`, `.git`, partial uploads `.upload-*.part`)."""
    return name.startswith(".")


def _utf8(name: str) -> bool:
    """Names that are not valid UTF-8 on disk (e.g. cp1251 bytes from an old archive) cannot
    be named back by the model; they are left out rather than shown garbled."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True)
class Entry:
    """One visible file or folder found by `Sandbox.walk`."""

    rel: str
    is_dir: bool
    size: int
    mtime_ns: int


class Sandbox:
    """A documents folder and the rules for what inside it the tools may see."""

    def __init__(self, root: Path, reserved: tuple[Path, ...] = ()) -> None:
        self.root = Path(os.path.realpath(root))
        self._reserved = tuple(
            r
            for r in (self._inside_rel(Path(os.path.realpath(p))) for p in reserved)
            if r and r != "."
        )

    def _inside_rel(self, real: Path) -> str | None:
        """The relative posix path of `real` when it lies inside the root, else None."""
        try:
            rel = real.relative_to(self.root)
        except ValueError:
            return None
        return rel.as_posix()

    def _is_private(self, rel: str) -> bool:
        parts = PurePosixPath(rel).parts
        if any(is_hidden_name(p) for p in parts):
            return True
        return any(rel == r or rel.startswith(r + "/") for r in self._reserved)

    def resolve(self, rel: str, *, must_exist: bool = True) -> Path:
        """Turn the model's relative path into a real path inside the root, or refuse.

        Raises:
            SandboxError: with `reason` saying why; `PathNotFoundError` when nothing is there.
        """
        try:
            return self._resolve(rel, must_exist=must_exist)
        except PathNotFoundError:
            variants = [rel.strip(), unicodedata.normalize("NFD", rel.strip())]
            for variant in dict.fromkeys(v for v in variants if v != rel):
                # stray spaces from the model; a name saved in decomposed form (macOS)
                with contextlib.suppress(PathNotFoundError):
                    return self._resolve(variant, must_exist=must_exist)
            raise

    def _resolve(self, rel: str, *, must_exist: bool) -> Path:
        clean = self._lexical(rel)
        real = Path(os.path.realpath(self.root / clean)) if clean else self.root
        real_rel = self._inside_rel(real)
        if real_rel is None:
            msg = f"'{shown(rel)}' leads outside the documents folder"
            raise SandboxError(msg, "escape")
        if real_rel not in ("", ".") and self._is_private(real_rel):
            raise SandboxError(f"'{shown(rel)}' is not available", "hidden")
        if must_exist and not os.path.lexists(real):
            raise PathNotFoundError(shown(clean or rel))
        return real

    def _lexical(self, rel: str) -> str:
        """Check the text of a path and normalise it to `a/b/c` without touching the disk."""
        if not isinstance(rel, str):
            raise SandboxError("the path must be a string", "invalid")
        text = rel
        if "\x00" in text:
            raise SandboxError("the path contains a NUL character", "invalid")
        if len(text) > MAX_PATH_CHARS:
            raise SandboxError("the path is too long", "too_long")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise SandboxError("the path contains invalid characters", "invalid") from None
        text = text.replace("\\", "/")
        head = text.lstrip()
        if head.startswith(("/", "~")) or _DRIVE.match(head):
            raise SandboxError(
                "absolute paths are not allowed",
                "absolute",
                "Use a path relative to the documents folder, e.g. 'docs/report.pdf'.",
            )
        parts: list[str] = []
        for part in text.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    msg = f"'{shown(rel)}' leads outside the documents folder"
                    raise SandboxError(msg, "escape")
                parts.pop()
                continue
            if len(part.encode("utf-8")) > MAX_PART_BYTES:
                raise SandboxError("a part of the path is too long", "too_long")
            if is_hidden_name(part):
                raise SandboxError(f"'{shown(rel)}' is not available", "hidden")
            parts.append(part)
        clean = "/".join(parts)
        if clean and self._is_private(clean):
            raise SandboxError(f"'{shown(rel)}' is not available", "hidden")
        return clean

    def relative(self, path: Path) -> str:
        """The path as the model sees it: posix, relative to the root ("" for the root)."""
        rel = self._inside_rel(Path(os.path.realpath(path)))
        if rel is None:
            raise SandboxError("the path is outside the documents folder", "escape")
        return "" if rel == "." else rel

    def entry(self, dirpath: str, de: os.DirEntry[str]) -> Entry | None:
        """Describe one directory entry, or None when the tools must not see it.

        Symlinks count only when their real target is inside the root and not private.
        """
        rel = f"{dirpath}/{de.name}" if dirpath else de.name
        if is_hidden_name(de.name) or self._is_private(rel) or not _utf8(de.name):
            return None
        try:
            if de.is_symlink():
                target = self._inside_rel(Path(os.path.realpath(de.path)))
                if target is None or target in ("", ".") or self._is_private(target):
                    return None
            st = de.stat()
        except OSError:
            return None
        if stat.S_ISDIR(st.st_mode):
            return Entry(rel, True, 0, st.st_mtime_ns)
        if stat.S_ISREG(st.st_mode):
            return Entry(rel, False, st.st_size, st.st_mtime_ns)
        return None

    def scan(self, rel_dir: str = "", *, strict: bool = False) -> list[Entry]:
        """Visible entries of one folder (not recursive), unsorted.

        A folder that vanished or cannot be opened gives [] (or OSError when `strict`).
        """
        base = self.root / rel_dir if rel_dir else self.root
        try:
            with os.scandir(base) as it:
                found = [self.entry(rel_dir, de) for de in it]
        except OSError:
            if strict:
                raise
            return []
        return [e for e in found if e is not None]

    def walk(self, rel_dir: str = "") -> Iterator[Entry]:
        """Every visible entry below a folder, depth first; symlinked folders are not entered.

        Not following folder links keeps the walk finite and each document listed once.
        """
        stack = [rel_dir]
        while stack:
            current = stack.pop()
            for e in self.scan(current):
                yield e
                if e.is_dir and not os.path.islink(self.root / e.rel):
                    stack.append(e.rel)

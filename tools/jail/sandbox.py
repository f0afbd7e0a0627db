"""The jail: the one place that turns a path from the model into a real path.

Every tool path goes through `Sandbox.resolve`. It refuses absolute paths, `..` that leaves the
root, NUL and other malformed input, over-long paths, hidden parts, the bot's own data folder,
and symlinks whose real target lies outside the root (or on something hidden). Messages quote
only what the model sent, shortened, and never a host path.

`Sandbox.within(scope)` is the same jail narrowed to a scope's folders: a path outside them, by
its name or by where a link leads, is "not found" exactly as a missing one, and listings and
walks skip it. Each folder of the scope means the one folder the jail finds for its name (the
name as written, else its decomposed form, as `resolve` looks), and names are then compared
exactly: a twin whose name is the same text in the other Unicode form stays outside.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
import stat
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tools.errors import PathNotFoundError, SandboxError
from tools.jail.scope import Scope
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


@dataclass(frozen=True, slots=True)
class Located:
    """A path the jail accepted: as named (`a/b`, `..` and stray spaces gone, links not
    followed; "" for the root) and the real path it leads to."""

    named: str
    real: Path


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
        self._wanted: Scope | None = None
        self._on_disk: Scope | None = None

    @property
    def reserved(self) -> tuple[Path, ...]:
        """The bot's own folders inside the root, as real paths (a jail in another process is
        built from them and the root)."""
        return tuple(self.root / r for r in self._reserved)

    def within(self, scope: Scope | None) -> Sandbox:
        """This jail narrowed to `scope` (itself when `scope` is None: everything)."""
        if scope is None:
            return self
        view = copy.copy(self)
        view._wanted = scope
        view._on_disk = None
        return view

    @property
    def scope(self) -> Scope | None:
        """The scope this view is narrowed to, spelled as its folders are on disk (None: the
        whole folder). The disk is asked at the first use, which is where the jail's blocking
        work runs, not where the view is made."""
        if self._wanted is None:
            return None
        if self._on_disk is None:
            self._on_disk = self._spelled(self._wanted)
        return self._on_disk

    def _spelled(self, scope: Scope) -> Scope:
        """`scope` with each folder named as the one on disk the jail finds for its name, to be
        compared exactly (blocking: a look at the disk per folder)."""
        on_disk = []
        for folder in scope.folders:
            decomposed = unicodedata.normalize("NFD", folder)
            found = not os.path.lexists(self.root / folder) and os.path.lexists(
                self.root / decomposed
            )
            on_disk.append(decomposed if found else folder)
        return Scope(tuple(on_disk), exact=True)

    def _inside_rel(self, real: Path) -> str | None:
        """The relative posix path of `real` when it lies inside the root, else None."""
        try:
            rel = real.relative_to(self.root)
        except ValueError:
            return None
        return rel.as_posix()

    def _is_private(self, rel: str) -> bool:
        # The parts PurePosixPath would give (empty and "." parts dropped), without building
        # one for every entry of every scan.
        parts = [part for part in rel.split("/") if part not in ("", ".")]
        if any(is_hidden_name(p) for p in parts):
            return True
        return any(rel == r or rel.startswith(r + "/") for r in self._reserved)

    def resolve(self, rel: str, *, must_exist: bool = True) -> Path:
        """Turn the model's relative path into a real path inside the root, or refuse.

        Raises:
            SandboxError: with `reason` saying why; `PathNotFoundError` when nothing is there.
        """
        return self.locate(rel, must_exist=must_exist).real

    def locate(self, rel: str, *, must_exist: bool = True) -> Located:
        """`resolve`, keeping the path as named too: what a check of the named entry itself
        (is it a link?) must look at, rather than the raw text.

        Raises:
            SandboxError: as `resolve`.
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

    def holds_reserved(self, real: Path) -> bool:
        """Whether `real` (inside the root) is, or is a folder holding, one of the bot's own
        paths (a DATA_DIR inside the documents folder), which must not be moved or deleted."""
        rel = self._inside_rel(Path(os.path.realpath(real)))
        if rel is None:
            return False
        if rel in ("", "."):
            return bool(self._reserved)
        return any(r == rel or r.startswith(rel + "/") for r in self._reserved)

    def _resolve(self, rel: str, *, must_exist: bool) -> Located:
        clean = self._lexical(rel)
        scope = self.scope
        # Outside the scope by name: not found before the disk is asked anything at all.
        if scope is not None and not _on_the_way(scope, clean):
            raise PathNotFoundError(shown(clean or rel))
        real = Path(os.path.realpath(self.root / clean)) if clean else self.root
        real_rel = self._inside_rel(real)
        if real_rel is None:
            msg = f"'{shown(rel)}' leads outside the documents folder"
            raise SandboxError(msg, "escape")
        if real_rel not in ("", ".") and self._is_private(real_rel):
            raise SandboxError(f"'{shown(rel)}' is not available", "hidden")
        if scope is not None and not _within(scope, clean, real_rel, real):
            raise PathNotFoundError(shown(clean or rel))  # e.g. a link leading out of the scope
        if must_exist and not os.path.lexists(real):
            raise PathNotFoundError(shown(clean or rel))
        return Located(clean, real)

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
        hidden = is_hidden_name(de.name) or self._is_private(rel) or not _utf8(de.name)
        if hidden or (self.scope is not None and not _on_the_way(self.scope, rel)):
            return None
        target: str | None = None
        try:
            if de.is_symlink():
                target = self._inside_rel(Path(os.path.realpath(de.path)))
                if target is None or target in ("", ".") or self._is_private(target):
                    return None
            st = de.stat()
        except OSError:
            return None
        is_dir = stat.S_ISDIR(st.st_mode)
        if not (is_dir or stat.S_ISREG(st.st_mode)) or not self._in_scope(
            rel, target, is_dir=is_dir
        ):
            return None
        return Entry(rel, is_dir, 0 if is_dir else st.st_size, st.st_mtime_ns)

    def _in_scope(self, rel: str, target: str | None, *, is_dir: bool) -> bool:
        """Whether an entry (and the real target of a link) may be shown within the scope."""
        scope = self.scope
        if scope is None:
            return True
        return scope.admits(rel, is_dir=is_dir) and (
            target is None or scope.admits(target, is_dir=is_dir)
        )

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

    def admits_file(self, rel: str) -> bool:
        """Whether a file the unscoped walk found is inside this view's scope (blocking: a
        link is followed to check where it leads)."""
        scope = self.scope
        if scope is None:
            return True
        if not scope.covers(rel):
            return False
        path = self.root / rel
        if not os.path.islink(path):
            return True
        target = self._inside_rel(Path(os.path.realpath(path)))
        return target is not None and scope.covers(target)

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


def _on_the_way(scope: Scope, rel: str) -> bool:
    """Inside the scope, or the root or a folder above one of its folders."""
    return scope.covers(rel) or scope.leads_to(rel)


def _within(scope: Scope, clean: str, real_rel: str, real: Path) -> bool:
    """Whether a resolved path is in the scope by name and by where it leads; a folder above
    the scope's folders counts too (it is listed as the way to them), a file there does not."""
    target = "" if real_rel == "." else real_rel
    if scope.covers(clean) and scope.covers(target):
        return True
    return _on_the_way(scope, target) and os.path.isdir(real)

"""A scope: the folders of the documents folder one question may see.

The tools take a scope per call and apply it where paths are resolved (the jail, the search
query), so what lies outside is not found rather than refused: a model cannot tell an outside
document from a missing one. `None` stands for no scope at all, the whole folder; a scope with
no folders sees nothing. Folder names are compared as Unicode NFC, exactly otherwise. The jail
holds the scope spelled as its folders are on disk and compares exactly (`exact`): two folders
whose names differ only in their Unicode form are two folders, and only one is in the scope.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

EVERYTHING = "*"
"""The folder entry that stands for the whole documents folder."""


class ScopeError(ValueError):
    """A folder name that cannot name a folder inside the documents folder."""


def _nfc(text: str) -> str:
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def clean_folder(raw: str) -> str:
    """A folder as the tools name it (`a/b`), or `ScopeError` saying what is wrong with it."""
    text = _nfc(str(raw).replace("\\", "/").strip().strip("/"))
    if not text:
        msg = "an empty folder name"
        raise ScopeError(msg)
    parts = text.split("/")
    for part in parts:
        if part in ("", ".", ".."):
            msg = f"'{raw}' is not a plain folder path (no '..', '.' or '//')"
            raise ScopeError(msg)
        if part.startswith("."):
            msg = f"'{raw}' names a hidden folder, which the bot never shows"
            raise ScopeError(msg)
        if any(ord(char) < 32 or char == "\x7f" for char in part):
            msg = f"'{raw}' contains control characters"
            raise ScopeError(msg)
    return "/".join(parts)


@dataclass(frozen=True, slots=True)
class Scope:
    """Folders (relative, `a/b`, none inside another) whose files a question may see."""

    folders: tuple[str, ...]
    exact: bool = False
    """Names compared as written, not folded to NFC: the jail's copy, spelled as the folders
    are on disk, so that a folder whose name is the same text in another form is not in."""

    @classmethod
    def of(cls, folders: Iterable[str]) -> Scope | None:
        """The scope of these folder names; None when one of them is `*` (everything).

        Raises:
            ScopeError: a name that cannot be a folder inside the documents folder.
        """
        names = [str(f).strip() for f in folders]
        if EVERYTHING in names:
            return None
        return cls._outermost(clean_folder(name) for name in names)

    @classmethod
    def _outermost(cls, folders: Iterable[str]) -> Scope:
        """Drop folders inside others listed, keeping the first-listed order."""
        unique = list(dict.fromkeys(folders))
        kept = [f for f in unique if not any(o != f and _below(f, o) for o in unique)]
        return cls(tuple(kept))

    def _name(self, rel: str) -> str:
        return rel if self.exact else _nfc(rel)

    @property
    def first(self) -> str | None:
        """The first folder listed: where an admin's upload in a scoped chat goes."""
        return self.folders[0] if self.folders else None

    def covers(self, rel: str) -> bool:
        """Whether the file or folder `rel` lies in one of the scope's folders."""
        rel = self._name(rel)
        return any(_below(rel, folder) for folder in self.folders)

    def leads_to(self, rel: str) -> bool:
        """Whether `rel` is the root or a folder above one of the scope's folders."""
        rel = self._name(rel).strip("/")
        if rel in ("", "."):
            return True
        return any(folder.startswith(rel + "/") for folder in self.folders)

    def admits(self, rel: str, *, is_dir: bool) -> bool:
        """Whether a listing may show `rel`: inside the scope, or a folder on the way there."""
        return self.covers(rel) or (is_dir and self.leads_to(rel))

    def shown(self) -> str:
        """The folders for people: `a/, b/c/`, or a dash for none."""
        return ", ".join(f"{f}/" for f in self.folders) or "—"


def _below(rel: str, folder: str) -> bool:
    return rel == folder or rel.startswith(folder + "/")


def intersect(first: Scope | None, second: Scope | None) -> Scope | None:
    """What both scopes allow: a folder of one counts where it lies inside the other."""
    if first is None:
        return second
    if second is None:
        return first
    common = [f for f in first.folders if second.covers(f)]
    common += [f for f in second.folders if first.covers(f)]
    return Scope._outermost(common)


def narrower(new: Scope | None, old: Scope | None) -> bool:
    """Whether `new` leaves out something `old` allowed."""
    if new is None:
        return False
    if old is None:
        return True
    return not all(new.covers(folder) for folder in old.folders)

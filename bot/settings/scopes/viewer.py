"""What one person may be shown of the documents folder: the single rule every report follows.

An admin's reports (`/audit`, `/gaps` and its digest, `/feedback`, `/usage`, the Mini App's
tabs) and the scopes an admin gives away (`/scope`, a group's change notices) all name paths or
folders. Each asks here, with the viewer's scope (`Scopes.of_viewer`: what their questions in
their private chat with the bot are answered within), whether a path, a set of paths or a whole
scope lies inside it. `None` is no scope at all: everything is seen.
"""

from __future__ import annotations

from collections.abc import Iterable

from tools.jail.scope import Scope, ScopeError, narrower


def sees(viewer: Scope | None, path: str) -> bool:
    """Whether the file or folder `path` lies within what the viewer sees."""
    return viewer is None or viewer.covers(path)


def sees_all(viewer: Scope | None, paths: Iterable[str]) -> bool:
    """Whether every path lies within what the viewer sees (none at all: yes)."""
    return viewer is None or all(viewer.covers(path) for path in paths)


def sees_scope(viewer: Scope | None, other: Scope | None) -> bool:
    """Whether everything `other` allows lies within what the viewer sees: a scope they may be
    shown, or give to a chat."""
    return not narrower(viewer, other)


def sees_folders(viewer: Scope | None, folders: Iterable[str]) -> bool:
    """`sees_scope` for folder names as they are written down (`*` for everything); a name that
    cannot be a folder is not seen by a scoped viewer."""
    if viewer is None:
        return True
    try:
        other = Scope.of(folders)
    except ScopeError:
        return False
    return sees_scope(viewer, other)

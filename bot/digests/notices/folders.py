"""The folder a subscription names: checked through the jail, within the subscriber's scope.

`/subscribe hr` takes the folder as it is on disk, and only when the subscriber could see it
(a folder outside their scope is "not there", exactly like a missing one). No folder means
everything the subscriber may see. Subscriptions do not overlap: a folder inside one already
subscribed to adds nothing, and a folder around others takes their place.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Literal

from bot.digests.notices.digest import in_folder
from tools.errors import PathNotFoundError, SandboxError
from tools.jail.sandbox import Sandbox
from tools.jail.scope import Scope, ScopeError, clean_folder

Problem = Literal["bad_name", "missing", "not_a_folder"]


class FolderProblem(Exception):
    """A folder that cannot be subscribed to; `problem` picks the message."""

    def __init__(self, problem: Problem, name: str) -> None:
        super().__init__(f"{problem}: {name}")
        self.problem = problem
        self.name = name


def subscribable(sandbox: Sandbox, scope: Scope | None, raw: str) -> str:
    """The folder `raw` names, relative and spelled as on disk (`""` for none named), when its
    subscriber (within `scope`) may subscribe to it (blocking: asks the disk).

    Raises:
        FolderProblem: why not.
    """
    name = raw.strip()
    if not name or name in ("/", "*"):
        return ""
    try:
        clean_folder(name)
    except ScopeError:
        raise FolderProblem("bad_name", name) from None
    jail = sandbox.within(scope)
    try:
        real = jail.resolve(name)
    except PathNotFoundError:
        raise FolderProblem("missing", name) from None
    except SandboxError:
        raise FolderProblem("bad_name", name) from None
    rel = sandbox.relative(real)
    if jail.scope is not None and not jail.scope.covers(rel):
        raise FolderProblem("missing", name)  # a folder on the way to the scope: not its own
    if not real.is_dir():
        raise FolderProblem("not_a_folder", name)
    return rel


def named(raw: str) -> str:
    """A folder as `/unsubscribe` names it, to compare with those subscribed (`""`: all)."""
    name = raw.strip().replace("\\", "/").strip("/")
    return "" if name == "*" else unicodedata.normalize("NFC", name)


def matching(folders: Iterable[str], raw: str) -> str | None:
    """The subscribed folder `raw` names, or None."""
    wanted = named(raw)
    return next((f for f in folders if unicodedata.normalize("NFC", f) == wanted), None)


def covering(folders: Iterable[str], folder: str) -> str | None:
    """A folder already subscribed to that holds `folder` (itself included), or None."""
    return next((f for f in folders if in_folder(folder, f)), None)


def inside(folders: Iterable[str], folder: str) -> list[str]:
    """The folders subscribed to that `folder` holds, which it replaces."""
    return [f for f in folders if f != folder and in_folder(f, folder)]

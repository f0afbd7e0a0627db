"""The project's own documentation as a reader gets it, for the tests that hold it to the code.

The README is the front page; the guide is the pages in `docs/`, which MkDocs builds into a
site. The configuration page's settings table is made at build time by a hook from the
settings model, so `page` renders it the same way, through the hook itself.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType, SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SETTINGS_HOOK = DOCS / "hooks" / "settings_reference.py"
SETTING_ROW = re.compile(r"^\| `([A-Z_]+)` \|", flags=re.MULTILINE)


def readme() -> str:
    """README.md as it is."""
    return (ROOT / "README.md").read_text(encoding="utf-8")


def page_names() -> list[str]:
    """Every page of the site, as its path under `docs/` (`deployment/docker.md`)."""
    return sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))


def source(name: str) -> str:
    """A page's Markdown as it is in the repository, before the build hook runs."""
    return (DOCS / name).read_text(encoding="utf-8")


def page(name: str) -> str:
    """A page's Markdown as the site shows it: the settings table in place on its page."""
    hook = settings_hook()
    fake_page = SimpleNamespace(file=SimpleNamespace(src_uri=name))
    rendered: str = hook.on_page_markdown(source(name), page=fake_page)
    return rendered


def all_text() -> str:
    """The README and every page as the site shows them, one after another."""
    return "\n".join([readme(), *(page(name) for name in page_names())])


def settings_hook() -> ModuleType:
    """The build hook loaded from its file, as MkDocs loads it."""
    spec = importlib.util.spec_from_file_location("settings_reference", SETTINGS_HOOK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

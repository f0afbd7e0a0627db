"""The plan on the door cannot go out of date: every room is named in the contracts and in its
package's docstring.

import-linter checks only the modules a contract names, so a new top-level module of `bot` left
out of the layers contract would be guarded by nothing; these tests make forgetting it a failure.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "tools")


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _contract(kind: str, naming: str) -> dict[str, Any]:
    found = [c for c in _contracts() if c["type"] == kind and naming in c["name"]]
    assert len(found) == 1, f"one {kind} contract whose name has {naming!r}"
    return found[0]


def _rooms(package: Path) -> list[str]:
    """The modules and packages directly inside `package`, by name."""
    modules = [p.stem for p in package.glob("*.py") if p.name != "__init__.py"]
    packages = [p.name for p in package.iterdir() if (p / "__init__.py").is_file()]
    return sorted(modules + packages)


def _packages() -> list[Path]:
    return sorted(
        init.parent
        for top in PACKAGES
        for init in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in init.parts
    )


def _layer_names(layers: list[str]) -> set[str]:
    return {name.strip() for layer in layers for name in re.split(r"[|:]", layer)}


class TestContracts:
    def test_every_top_level_room_of_bot_is_in_the_layers_contract(self) -> None:
        layered = _layer_names(_contract("layers", "bot's top level")["layers"])
        rooms = {f"bot.{name}" for name in _rooms(ROOT / "bot")}
        assert not rooms - layered, f"add to the layers contract: {sorted(rooms - layered)}"
        assert not layered - rooms, f"the layers contract names gone rooms: {layered - rooms}"

    def test_only_the_telegram_wing_may_import_aiogram(self) -> None:
        contract = _contract("forbidden", "aiogram")
        guarded = set(contract["source_modules"])
        rooms = {f"bot.{name}" for name in _rooms(ROOT / "bot")} - {"bot.telegram"}
        assert not rooms - guarded, f"add to the aiogram contract: {sorted(rooms - guarded)}"
        assert not guarded - rooms, f"the aiogram contract names gone rooms: {guarded - rooms}"


ENTRANCE_AND_WIRING = {"__main__", "healthcheck", "services"}
MOST_ROOMS_OF_BOT = 14
MOST_MODULES_OF_TOOLS = 12


def test_the_top_level_of_bot_is_the_entrance_and_the_wiring() -> None:
    """Anything else is a room: a package with a docstring saying what it holds."""
    loose = {p.stem for p in (ROOT / "bot").glob("*.py") if p.name != "__init__.py"}
    assert loose <= ENTRANCE_AND_WIRING, f"put in a package: {sorted(loose - ENTRANCE_AND_WIRING)}"


def test_the_top_levels_read_as_a_table_of_contents() -> None:
    """Few enough entries to take in at a glance: bot's rooms, and tools' loose modules."""
    rooms = [r for r in _rooms(ROOT / "bot") if r != "__main__"]
    assert len(rooms) <= MOST_ROOMS_OF_BOT, f"bot/ has {len(rooms)} entries: {rooms}"
    modules = [p.stem for p in (ROOT / "tools").glob("*.py") if not p.stem.startswith("__")]
    assert len(modules) <= MOST_MODULES_OF_TOOLS, f"tools/ has {len(modules)} modules: {modules}"


@pytest.mark.parametrize("package", _packages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_packages_docstring_names_every_room_it_holds(package: Path) -> None:
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text("utf-8"))) or ""
    missing = [
        name
        for name in _rooms(package)
        if not re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", docstring)
    ]
    where = package.relative_to(ROOT)
    assert not missing, f"{where}/__init__.py should say what these hold: {', '.join(missing)}"


SQLITE_OPENER = ("tools/sqlite.py", "connect")
"""The one function that calls `sqlite3.connect`: every SQLite file is opened through it."""


def _sqlite_connects(path: Path) -> list[tuple[str, str]]:
    """Where `path` calls `sqlite3.connect` (or imports it bare), by enclosing function."""
    tree = ast.parse(path.read_text("utf-8"))
    found: list[tuple[str, str]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inside = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inside = child.name
            if (
                isinstance(child, ast.Attribute)
                and child.attr == "connect"
                and isinstance(child.value, ast.Name)
                and child.value.id == "sqlite3"
            ) or (
                isinstance(child, ast.ImportFrom)
                and child.module == "sqlite3"
                and any(alias.name == "connect" for alias in child.names)
            ):
                found.append((str(path.relative_to(ROOT)), inside))
            visit(child, inside)

    visit(tree, "<module>")
    return found


def test_sqlite_is_opened_in_one_place() -> None:
    """Busy waits, journal mode, read-only and snapshot opens and the schema's set-up are one
    function's job (`tools.sqlite.connect`); a second opener would drift from it."""
    calls = [
        call
        for top in (*PACKAGES, "bench")
        for path in sorted((ROOT / top).rglob("*.py"))
        if "__pycache__" not in path.parts
        for call in _sqlite_connects(path)
    ]
    assert calls == [SQLITE_OPENER], f"open SQLite through tools.sqlite.connect: {calls}"

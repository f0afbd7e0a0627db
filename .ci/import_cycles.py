"""Fail when the modules of bot and tools import each other in a cycle, or when a directory
of them has no __init__.py (lint-imports does not look inside such a directory, so its
contracts would silently skip the modules there).

import-linter's `acyclic_siblings` contract sees cycles between sibling packages and modules,
but not a package that imports its own submodule which imports the package back, nor a module
that imports itself. This checker builds the module graph from the source with `ast`: every
import counts, at module level and inside functions, except those under `if TYPE_CHECKING:`.
An import names one module: `from a.b import c` is an edge to `a.b.c` when that is a module,
else to `a.b`; the parent packages it also initialises are not counted.

    python .ci/import_cycles.py                  # exit 1 and list the cycles, if any
    python .ci/import_cycles.py --local-imports  # also list the imports inside functions
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "tools")


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    local: bool  # inside a function body


def module_files() -> dict[str, Path]:
    """Module name -> file, for every .py file under the packages (namespace dirs included)."""
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if "__pycache__" in parts:
                continue
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def directories_without_init() -> list[Path]:
    """Directories under the packages that hold Python files but no __init__.py."""
    dirs = {path.parent for package in PACKAGES for path in (ROOT / package).rglob("*.py")}
    return sorted(
        d.relative_to(ROOT)
        for d in dirs
        if "__pycache__" not in d.parts and not (d / "__init__.py").exists()
    )


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _import_nodes(
    nodes: list[ast.stmt], local: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, local
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _import_nodes(node.orelse, local)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _import_nodes(node.body, True)
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(node, field, None)
                if isinstance(children, list):
                    stmts = [c for c in children if isinstance(c, ast.stmt)]
                    stmts += [s for c in children if not isinstance(c, ast.stmt) for s in c.body]
                    yield from _import_nodes(stmts, local)


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """Every import in `path` (module `name`), relative ones resolved; `imported` is a module
    of the packages where the import names one."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found: list[Import] = []

    def add(target: str, node: ast.stmt, local: bool) -> None:
        found.append(Import(name, target, node.lineno, local))

    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node, local in _import_nodes(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node, local)
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, base] if base else anchor)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            add(submodule if submodule in modules else base, node, local)
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module, and modules importing
    themselves (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in edges[node]:
                        found.append(sorted(component))
    return sorted(found)


def _order(imp: Import) -> tuple[str, int, str]:
    return imp.importer, imp.line, imp.imported


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--local-imports", action="store_true", help="also list the imports inside functions"
    )
    args = parser.parse_args(argv)

    modules = module_files()
    all_imports = [i for name, path in modules.items() for i in imports_of(name, path, modules)]
    if args.local_imports:
        statements: dict[tuple[str, int], list[str]] = {}
        for imp in all_imports:
            if imp.local:
                statements.setdefault((imp.importer, imp.line), []).append(imp.imported)
        print(f"{len(statements)} import statements inside functions:")
        for (importer, line), names in statements.items():
            print(f"  {modules[importer].relative_to(ROOT)}:{line}: {', '.join(names)}")

    internal = sorted({i for i in all_imports if i.imported in modules}, key=_order)
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for imp in internal:
        edges[imp.importer].add(imp.imported)
    count = sum(len(targets) for targets in edges.values())
    found = cycles(edges)
    print(f"{len(modules)} modules, {count} module-to-module imports, {len(found)} cycles")
    for number, component in enumerate(found, 1):
        print(f"cycle {number}: {', '.join(component)}")
        members = set(component)
        for imp in internal:
            if imp.importer in members and imp.imported in members:
                path = modules[imp.importer].relative_to(ROOT)
                print(f"  {path}:{imp.line}: {imp.importer} -> {imp.imported}")
    missing = directories_without_init()
    for directory in missing:
        print(f"{directory}/ has no __init__.py: lint-imports does not see its modules")
    return 1 if found or missing else 0


if __name__ == "__main__":
    sys.exit(main())

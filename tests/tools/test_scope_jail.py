"""The jail's attacks again, once per scope: nothing outside a scope is read, named or counted.

The hostile host of `test_jail` gains a nested folder and links from one scope into another.
Each scope gets every known path attack through all three tools, outside paths that must read
exactly like missing ones, typos and globs that must not suggest an outside name, and searches
whose totals count the scope's documents only.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fakes.sandbox_fixtures import SANDBOX_FILES
from tests.tools.test_jail import ATTACKS, MARKER, LoopThread, build_host
from tools import Toolbox
from tools.config import ToolSettings
from tools.errors import PathNotFoundError
from tools.jail.scope import Scope

HANDBOOK = "hr/public/handbook.md"
FILES = {
    **{p: c for p, c in SANDBOX_FILES.items() if not any(s.startswith(".") for s in p.split("/"))},
    HANDBOOK: b"# Handbook\n\nOffice hours are nine to six.\n",
}
LINKS = {
    "документы/к_отпуску.md": "hr/отпуск.md",
    "документы/hr_папка": "hr",
    "hr/public/to_salaries.md": "hr/vacation_policy.md",
}
TEXTS = {
    "документы/рецепт_шарлотки.txt": "Выпекать 40 минут",
    "документы/договор_аренды.md": "120 000 рублей",
    "hr/отпуск.md": "28 календарных дней",
    "hr/vacation_policy.md": "paid vacation",
    "финансы/бюджет_2024.csv": "9600000",
    "финансы/старый_приказ.txt": "премировании",
    "it/vpn.txt": "vpn.example.com",
    "README.md": "Company documents",
    HANDBOOK: "nine to six",
}
NAMES = {p: Path(p).stem for p in TEXTS}
SCOPES = {
    "documents": ("документы",),
    "hr-public": ("hr/public",),
    "finance-and-it": ("финансы", "it"),
}


def _inside(path: str, folders: tuple[str, ...]) -> bool:
    return any(path == f or path.startswith(f + "/") for f in folders)


def _allowed(folders: tuple[str, ...]) -> set[str]:
    """Files the scope may see, and the folders a listing may show on the way to them."""
    files = {p for p in FILES if _inside(p, folders)}
    files |= {p for p, target in LINKS.items() if _inside(p, folders) and _inside(target, folders)}
    ways = {"/".join(f.split("/")[:i]) for f in folders for i in range(1, f.count("/") + 2)}
    inner = {p.rsplit("/", 1)[0] for p in files if "/" in p}
    return files | ways | inner


class Scoped:
    """A started toolbox over the hostile host, each call made within one scope."""

    def __init__(self, runner: LoopThread, box: Toolbox, folders: tuple[str, ...]) -> None:
        self.runner = runner
        self.box = box
        self.folders = folders
        self.scope = Scope.of(folders)
        self.allowed = _allowed(folders)

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        text = self.runner.run(self.box.execute(name, args, scope=self.scope)).text
        return self.check(text, json.dumps(args, ensure_ascii=False))

    def check(self, text: str, sent: str) -> dict[str, Any]:
        """Nothing of an outside document: no text, no name the caller did not send itself."""
        assert MARKER not in text
        own = text
        for tool in self.box.tools.values():  # the tools' fixed examples are no leak
            own = own.replace(json.dumps(tool.example, ensure_ascii=False)[1:-1], "")
        for path, words in TEXTS.items():
            if not _inside(path, self.folders):
                assert words not in own, (path, sent)
                if NAMES[path] not in sent:
                    assert NAMES[path] not in own, (path, sent)
        payload: dict[str, Any] = json.loads(text)
        shown = [e["path"] for e in payload.get("entries", [])]
        shown += [r["path"] for r in payload.get("results", [])]
        if "document" in payload:
            shown.append(payload["path"])
        hint = payload.get("hint", "")
        if hint.startswith("Did you mean"):
            shown += re.findall(r"'([^']*)'", hint)
        for path in shown:
            assert path in self.allowed, (path, sent)
        return payload


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LoopThread, Toolbox]]:
    root, data = build_host(tmp_path_factory.mktemp("scoped"))
    (root / HANDBOOK).parent.mkdir(parents=True)
    (root / HANDBOOK).write_bytes(FILES[HANDBOOK])
    for link, target in LINKS.items():
        (root / link).symlink_to(root / target)
    runner = LoopThread()
    # DATA_DIR inside the documents folder, which the settings refuse: the jail must hide it
    # even so, so the settings' own check is bypassed here
    hostile = ToolSettings.model_construct(sandbox_dir=root, data_dir=data)
    box = Toolbox(hostile, watch="rescan")

    async def start() -> None:
        await box.start()
        await asyncio.wait_for(box.wait_ready(), 60)

    runner.run(start())
    try:
        yield runner, box
    finally:
        runner.run(box.close())
        runner.stop()


@pytest.fixture(params=sorted(SCOPES))
def scoped(request: pytest.FixtureRequest, started: tuple[LoopThread, Toolbox]) -> Scoped:
    return Scoped(*started, SCOPES[request.param])


class TestAttacksPerScope:
    def test_every_attack_through_every_tool(self, scoped: Scoped) -> None:
        for attack in ATTACKS:
            scoped.call("read_file", {"path": attack})
            scoped.call("list_files", {"path": attack, "depth": 3})
            scoped.call("search_files", {"query": attack})
            scoped.call("read_file", {"path": f"{scoped.folders[0]}/{attack}"})

    def test_the_whole_tree_shows_the_scope_only(self, scoped: Scoped) -> None:
        payload = scoped.call("list_files", {"path": "", "depth": 6})
        assert {e["path"] for e in payload["entries"]} == scoped.allowed

    def test_folder_counts_are_the_scopes(self, started: tuple[LoopThread, Toolbox]) -> None:
        payload = Scoped(*started, SCOPES["hr-public"]).call("list_files", {"path": ""})
        assert payload["entries"] == [
            {
                "path": "hr",
                "type": "dir",
                "files": 1,
                "modified": payload["entries"][0]["modified"],
            }
        ]
        assert payload["total"] == 1

    @pytest.mark.parametrize("outside", sorted(set(TEXTS) | set(LINKS)))
    def test_an_outside_path_reads_as_a_missing_one(self, scoped: Scoped, outside: str) -> None:
        if outside in scoped.allowed:
            pytest.skip("inside this scope")
        missing = f"нет_такой_папки/{outside.rsplit('/', 1)[-1]}"
        for tool in ("read_file", "list_files"):
            got = scoped.call(tool, {"path": outside})
            twin = scoped.call(tool, {"path": missing})
            assert got["error"] == f"'{outside}' does not exist"
            assert got["error"].replace(outside, missing) == twin["error"]
            assert got["hint"] == twin["hint"]

    def test_links_into_another_scope_are_missing(self, scoped: Scoped) -> None:
        jail = scoped.box.sandbox.within(scoped.scope)
        for link in LINKS:
            if link not in scoped.allowed:
                with pytest.raises(PathNotFoundError):
                    jail.resolve(link)
        for path in ("документы/hr_папка/отпуск.md", "документы/hr_папка"):
            with pytest.raises(PathNotFoundError):
                jail.resolve(path)

    @pytest.mark.parametrize(
        "query",
        ["отпуск", "отпск", "отпуск.md", "*отпуск*", "*", "*.md", "vacation", "vacaton policy",
         "премирование", "шарлотка", "handbook", "hr*", "*/*", "28 календарных дней", "vpn"],
    )  # fmt: skip
    def test_searches_find_and_count_inside_only(self, scoped: Scoped, query: str) -> None:
        payload = scoped.call("search_files", {"query": query, "limit": 50})
        assert payload["total"] == len(payload["results"])
        assert "document_languages" not in payload

    @pytest.mark.parametrize(
        "typo", ["hr/отпуск.mdd", "отпуск.md", "vacation_polcy.md", "бюджет_2024.csv", "README.md"]
    )
    def test_typos_suggest_nothing_outside(self, scoped: Scoped, typo: str) -> None:
        scoped.call("read_file", {"path": typo})
        scoped.call("list_files", {"path": typo})


class TestInsideStillWorks:
    def test_a_scoped_search_ranks_and_counts_its_own(
        self, started: tuple[LoopThread, Toolbox]
    ) -> None:
        documents = Scoped(*started, SCOPES["documents"])
        found = documents.call("search_files", {"query": "аренды"})
        assert [r["path"] for r in found["results"]] == ["документы/договор_аренды.md"]
        assert found["total"] == 1
        hr = Scoped(*started, SCOPES["hr-public"])
        assert hr.call("search_files", {"query": "аренды"})["total"] == 0

    def test_a_link_within_the_scope_is_read(self, started: tuple[LoopThread, Toolbox]) -> None:
        hr = Scoped(*started, ("hr",))
        page = hr.call("read_file", {"path": "hr/public/to_salaries.md"})
        assert "paid vacation" in page["document"]

    def test_a_suggestion_inside_the_scope_is_offered(
        self, started: tuple[LoopThread, Toolbox]
    ) -> None:
        documents = Scoped(*started, SCOPES["documents"])
        got = documents.call("read_file", {"path": "документы/рецепт_шарлотка.txt"})
        assert "документы/рецепт_шарлотки.txt" in got["hint"]

    def test_without_a_scope_everything_is_there(
        self, started: tuple[LoopThread, Toolbox]
    ) -> None:
        runner, box = started
        found = json.loads(runner.run(box.execute("search_files", {"query": "отпуск"})).text)
        assert "hr/отпуск.md" in {r["path"] for r in found["results"]}


class TestGeneratedPathsPerScope:
    PIECES = st.sampled_from(
        ["..", ".", "", "документы", "hr", "public", "hr_папка", "к_отпуску.md", "отпуск.md",
         "to_salaries.md", "..\\..", "%2e%2e", "*", "?", "[h]r", "ｈｒ", "HR", " ", "\u202e",
         "финансы", "it", "vpn.txt", "README.md", "handbook.md", "документы/../hr"]
    )  # fmt: skip
    PATHS = st.one_of(st.lists(PIECES, max_size=6).map("/".join), st.text(max_size=30))

    @settings(
        max_examples=120,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(path=PATHS)
    def test_tools_never_leak(self, scoped: Scoped, path: str) -> None:
        scoped.call("read_file", {"path": path})
        scoped.call("list_files", {"path": path, "depth": 4})
        scoped.call("search_files", {"query": path or "*"})

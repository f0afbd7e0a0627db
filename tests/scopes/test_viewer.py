"""The one rule every report follows: what a viewer with a scope may be shown."""

from __future__ import annotations

from bot.settings.scopes.viewer import sees, sees_all, sees_folders, sees_scope
from tools.jail.scope import Scope

SALES = Scope.of(["продажи"])


class TestSees:
    def test_a_path_inside_and_outside(self) -> None:
        assert sees(SALES, "продажи/план.md")
        assert not sees(SALES, "hr/отпуск.md")
        assert not sees(SALES, "продажи2/план.md")
        assert sees(None, "hr/отпуск.md")

    def test_every_path_or_none(self) -> None:
        assert sees_all(SALES, [])
        assert sees_all(SALES, ["продажи/a.md", "продажи/b/c.md"])
        assert not sees_all(SALES, ["продажи/a.md", "hr/b.md"])

    def test_a_scope_within_and_one_wider(self) -> None:
        assert sees_scope(SALES, Scope.of(["продажи/eu"]))
        assert sees_scope(SALES, Scope.of([]))
        assert not sees_scope(SALES, None)
        assert not sees_scope(SALES, Scope.of(["продажи", "hr"]))
        assert sees_scope(None, None)

    def test_folders_as_written_down(self) -> None:
        assert sees_folders(SALES, ["продажи"])
        assert not sees_folders(SALES, ["*"])
        assert not sees_folders(SALES, ["../hr"])
        assert sees_folders(None, ["*"])

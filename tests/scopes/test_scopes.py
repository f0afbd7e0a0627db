"""SCOPES_FILE's rules, the scope store, and the choice of a question's scope."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.entrance.loading import SettingsError, load_settings
from bot.settings.scopes import Scopes, ScopesFileError, load_rules, parse_rules
from bot.storage.scopes.sqlite import SqliteScopeStore
from tools.jail.scope import Scope, ScopeError, intersect, narrower

EXAMPLE = """
default = ["общие"]          # everyone not listed
-1001234567890 = ["продажи", "общие"]   # a group
42 = ["*"]                   # a user: everything
"""


class TestTheFile:
    def test_the_documented_example(self) -> None:
        rules = parse_rules(EXAMPLE)
        assert rules.of(-1001234567890) == Scope(("продажи", "общие"))
        assert rules.of(42) is None
        assert rules.of(7) == Scope(("общие",))
        assert rules.folders() == {"продажи", "общие"}

    def test_a_forum_topic_has_an_entry_of_its_own(self) -> None:
        rules = parse_rules(EXAMPLE + '"-1001234567890/7" = ["hr"]\n')
        assert rules.topic(-1001234567890, 7) == (True, Scope(("hr",)))
        assert rules.topic(-1001234567890, 8) == (False, None)
        assert rules.of(-1001234567890) == Scope(("продажи", "общие"))
        assert "hr" in rules.folders()

    def test_without_a_default_the_unlisted_see_everything(self) -> None:
        assert parse_rules('5 = ["a"]').of(6) is None
        assert load_rules(None).of(6) is None
        assert not load_rules(None).configured

    @pytest.mark.parametrize(
        ("text", "says"),
        [
            ('sales = ["x"]', "'sales': a key is `default`, a numeric"),
            ('"-100/x" = ["x"]', "'-100/x': a key is `default`, a numeric"),
            ('"-100/7/8" = ["x"]', "'-100/7/8': a key is `default`"),
            ('"-100/7" = "x"', "-100/7: expected a list of folder names"),
            ('5 = "x"', "5: expected a list of folder names"),
            ("5 = [1]", "5: expected a list of folder names"),
            ('5 = ["../hr"]', "5: '../hr' is not a plain folder path"),
            ('5 = [".git"]', "5: '.git' names a hidden folder"),
            ('5 = [""]', "5: an empty folder name"),
            ("5 = [", "not valid TOML"),
            ('[table]\nx = ["a"]', "'table': a key is `default`"),
        ],
    )
    def test_a_bad_file_says_where_and_why(self, text: str, says: str) -> None:
        with pytest.raises(ScopesFileError) as caught:
            parse_rules(text)
        assert says in str(caught.value)

    def test_a_bad_file_stops_the_settings_naming_the_setting(self, tmp_path: Path) -> None:
        bad = tmp_path / "scopes.toml"
        bad.write_text('sales = ["x"]\n', encoding="utf-8")
        for path, says in ((bad, "'sales'"), (tmp_path / "none.toml", "does not exist")):
            with pytest.raises(SettingsError) as caught:
                load_settings(sandbox_dir=tmp_path, data_dir=_beside(tmp_path), scopes_file=path)
            (problem,) = caught.value.problems
            assert problem.startswith("SCOPES_FILE: ")
            assert says in problem

    def test_the_settings_keep_the_rules(self, tmp_path: Path) -> None:
        path = tmp_path / "scopes.toml"
        path.write_text(EXAMPLE, encoding="utf-8")
        settings = load_settings(
            sandbox_dir=tmp_path, data_dir=_beside(tmp_path), scopes_file=path
        )
        assert settings.scope_rules.of(42) is None
        assert settings.scope_rules.configured


class TestScopeAlgebra:
    def test_intersection_keeps_what_both_allow(self) -> None:
        sales, hr = Scope(("продажи",)), Scope(("hr",))
        assert intersect(sales, hr) == Scope(())
        assert intersect(None, hr) == hr
        assert intersect(Scope(("docs",)), Scope(("docs/eu", "hr"))) == Scope(("docs/eu",))
        assert intersect(None, None) is None

    def test_narrower(self) -> None:
        assert narrower(Scope(("a",)), None)
        assert not narrower(None, Scope(("a",)))
        assert not narrower(Scope(("a",)), Scope(("a/b",)))
        assert narrower(Scope(("a/b",)), Scope(("a",)))

    def test_folder_names(self) -> None:
        assert Scope.of([" docs/hr/ ", "docs", "it"]) == Scope(("docs", "it"))
        assert Scope.of(["*", "x"]) is None
        with pytest.raises(ScopeError):
            Scope.of(["a/../b"])
        assert Scope(("docs",)).covers("docs/a.txt")
        assert not Scope(("docs",)).covers("docs2/a.txt")
        assert Scope(("a/b",)).leads_to("a")
        assert not Scope(("a/b",)).admits("a", is_dir=False)


class TestTheStore:
    async def test_a_chat_override_wins_over_the_file_and_survives_reopening(
        self, tmp_path: Path
    ) -> None:
        rules = parse_rules(EXAMPLE)
        path = tmp_path / "scopes.sqlite3"
        scopes = Scopes(rules, SqliteScopeStore(path), clock=lambda: 1000.0)
        await scopes.set_chat(-1001234567890, Scope(("hr",)), by=42, by_name="Ann")
        await scopes.store.close()
        scopes = Scopes(rules, SqliteScopeStore(path))
        try:
            chat = await scopes.of_chat(-1001234567890)
            assert (chat.scope, chat.source) == (Scope(("hr",)), "telegram")
            assert await scopes.for_question(-1001234567890, 7) == Scope(())
            assert await scopes.for_question(-1001234567890, 42) == Scope(("hr",))
            assert await scopes.reset_chat(-1001234567890, by=42)
            assert not await scopes.reset_chat(-1001234567890, by=42)
            assert (await scopes.of_chat(-1001234567890)).source == "file"
        finally:
            await scopes.store.close()

    async def test_a_topic_answers_within_its_own_scope_then_its_groups(
        self, tmp_path: Path
    ) -> None:
        group = -1001234567890
        rules = parse_rules(EXAMPLE + f'"{group}/7" = ["hr"]\n')
        scopes = Scopes(rules, SqliteScopeStore(tmp_path / "s.sqlite3"), clock=lambda: 5.0)
        try:
            assert await scopes.for_question(group, 42, 7) == Scope(("hr",))  # the file's
            assert await scopes.for_question(group, 42, 9) == Scope(("продажи", "общие"))
            assert await scopes.for_question(group, 7, 7) == Scope(())  # the asker's own
            await scopes.set_chat(group, Scope(("it",)), by=42, thread_id=9)
            assert await scopes.for_question(group, 42, 9) == Scope(("it",))
            assert await scopes.for_question(group, 42) == Scope(("продажи", "общие"))
            topic = await scopes.of_chat(group, 9)
            assert (topic.source, topic.override and topic.override.thread_id) == ("telegram", 9)
            assert await scopes.reset_chat(group, by=42, thread_id=9)
            assert await scopes.for_question(group, 42, 9) == Scope(("продажи", "общие"))
        finally:
            await scopes.store.close()

    async def test_a_conversation_learns_when_its_scope_narrowed(self, tmp_path: Path) -> None:
        scopes = Scopes(load_rules(None), SqliteScopeStore(tmp_path / "s.sqlite3"))
        try:
            assert not await scopes.narrowed_since_last("c", None)
            assert await scopes.narrowed_since_last("c", Scope(("a", "b")))
            assert not await scopes.narrowed_since_last("c", Scope(("a", "b")))
            assert not await scopes.narrowed_since_last("c", None)
            assert await scopes.narrowed_since_last("c", Scope(("a",)))
        finally:
            await scopes.store.close()


def _beside(folder: Path) -> Path:
    """A data folder next to the documents folder `folder`: never inside it."""
    return folder.with_name(f"{folder.name}-data")

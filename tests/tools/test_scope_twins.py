"""Folders whose names are the same text in two Unicode forms, and the bot's own data inside the
documents folder: the jail lets a scope see the one folder its name finds, and names what holds
DATA_DIR.

Names are drawn with letters that compose (ё, й, é) so that the composed and decomposed forms
differ; the scope always names the composed form, as SCOPES_FILE and /scope store it.
"""

from __future__ import annotations

import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.errors import PathNotFoundError
from tools.jail.sandbox import Sandbox
from tools.jail.scope import Scope

_LETTERS = "аёйeéхыz"
NAMES = (
    st.text(_LETTERS, min_size=1, max_size=8)
    .map(lambda s: unicodedata.normalize("NFC", s))
    .filter(lambda s: unicodedata.normalize("NFD", s) != s)
)


def _folder_with_file(root: Path, name: str, file: str, text: str) -> None:
    (root / name).mkdir()
    (root / name / file).write_text(text, encoding="utf-8")


class TestTwins:
    @settings(max_examples=40, deadline=None)
    @given(name=NAMES)
    def test_only_the_folder_the_name_finds_is_in_the_scope(self, name: str) -> None:
        twin = unicodedata.normalize("NFD", name)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            _folder_with_file(root, name, "open.txt", "open")
            _folder_with_file(root, twin, "secret.txt", "secret")
            jail = Sandbox(root).within(Scope.of([name]))
            assert jail.admits_file(f"{name}/open.txt")
            assert not jail.admits_file(f"{twin}/secret.txt")
            assert [e.rel for e in jail.walk()] == [name, f"{name}/open.txt"]
            for path in (f"{twin}/secret.txt", twin, f"{name}/secret.txt"):
                with pytest.raises(PathNotFoundError):
                    jail.resolve(path)

    @settings(max_examples=40, deadline=None)
    @given(name=NAMES)
    def test_a_folder_saved_decomposed_alone_is_the_scopes(self, name: str) -> None:
        saved = unicodedata.normalize("NFD", name)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            _folder_with_file(root, saved, "open.txt", "open")
            jail = Sandbox(root).within(Scope.of([name]))
            assert jail.admits_file(f"{saved}/open.txt")
            assert jail.resolve(f"{name}/open.txt") == root.resolve() / saved / "open.txt"


class TestReserved:
    def test_a_folder_holding_the_data_folder_holds_it(self, tmp_path: Path) -> None:
        data = tmp_path / "docs" / "archive" / "bot-data"
        data.mkdir(parents=True)
        (tmp_path / "docs" / "other").mkdir()
        jail = Sandbox(tmp_path / "docs", reserved=(data,))
        root = jail.root
        assert jail.holds_reserved(root / "archive")
        assert jail.holds_reserved(root / "archive" / "bot-data")
        assert jail.holds_reserved(root)
        assert not jail.holds_reserved(root / "other")
        assert not jail.holds_reserved(root / "archive-2")
        assert not Sandbox(tmp_path / "docs").holds_reserved(root / "archive")

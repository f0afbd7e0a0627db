"""`python -m bot check` gets a line on SCOPES_FILE when there is one."""

from __future__ import annotations

from pathlib import Path

from bot.console.check.scopes import check_scopes
from bot.entrance.loading import load_settings


class TestScopesLine:
    def test_every_folder_present(self, tmp_path: Path) -> None:
        settings = load_settings(
            sandbox_dir=tmp_path, data_dir=_beside(tmp_path), scopes_file=_write(tmp_path)
        )
        (tmp_path / "it").mkdir()
        outcome = check_scopes(settings)
        listed = "2 chats, topics and users listed"
        assert outcome.line() == f"✓ scopes: {listed}; everyone else sees it/"

    def test_a_missing_folder_or_a_file_fails_naming_them(self, tmp_path: Path) -> None:
        (tmp_path / "readme.txt").write_text("x", encoding="utf-8")
        (tmp_path / "it").mkdir()
        path = tmp_path / "scopes.toml"
        path.write_text('default = ["it"]\n5 = ["нет", "readme.txt"]\n', encoding="utf-8")
        settings = load_settings(
            sandbox_dir=tmp_path, data_dir=_beside(tmp_path), scopes_file=path
        )
        outcome = check_scopes(settings)
        assert outcome.ok is False
        assert outcome.text.endswith("lacks: 'readme.txt', 'нет'")


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "scopes.toml"
    path.write_text('default = ["it"]\n42 = ["*"]\n"-100/7" = ["it"]\n', encoding="utf-8")
    return path


def _beside(folder: Path) -> Path:
    """A data folder next to the documents folder `folder`: never inside it."""
    return folder.with_name(f"{folder.name}-data")

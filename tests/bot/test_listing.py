"""The /files overview keeps to its line budget without losing count of anything."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.telegram.handlers.listing import FILES_PER_FOLDER, overview
from bot.telegram.texts import RUSSIAN
from tools.jail.sandbox import Entry


def _entries(root_files: int, folders: list[int]) -> list[Entry]:
    entries = [Entry(f"f{i:03}.txt", False, 1, 0) for i in range(root_files)]
    for index, count in enumerate(folders):
        folder = f"d{index:03}"
        entries.append(Entry(folder, True, 0, 0))
        entries += [Entry(f"{folder}/x{i:03}.txt", False, 1, 0) for i in range(count)]
    return entries


def _accounted(lines: list[str], hidden: int) -> int:
    """Files the reader learns of: each file line, each "… и ещё N", and the hidden count."""
    file_lines = sum("📄" in line for line in lines)
    in_folders = sum(int(m) for m in re.findall(r"… и ещё (\d+)", "\n".join(lines)))
    return file_lines + in_folders + hidden


class TestOverview:
    def test_root_files_are_shown_even_after_many_folders(self) -> None:
        result = overview(_entries(3, [7] * 30), RUSSIAN.files_more_in_folder, max_lines=50)
        assert result.lines[:3] == ["📄 f000.txt", "📄 f001.txt", "📄 f002.txt"]
        assert len(result.lines) <= 50

    def test_no_folder_header_without_its_files(self) -> None:
        result = overview(_entries(0, [7] * 30), RUSSIAN.files_more_in_folder, max_lines=50)
        block = 2 + FILES_PER_FOLDER
        assert len(result.lines) % block == 0
        assert result.lines[-1].strip().startswith("… и ещё")

    def test_hidden_counts_files_not_lines(self) -> None:
        result = overview(_entries(0, [7] * 30), RUSSIAN.files_more_in_folder, max_lines=50)
        shown_folders = len(result.lines) // (2 + FILES_PER_FOLDER)
        assert result.hidden_files == (30 - shown_folders) * 7

    @settings(max_examples=40, deadline=None)
    @given(
        st.integers(0, 40),
        st.lists(st.integers(0, 12), max_size=25),
        st.integers(5, 60),
    )
    def test_every_file_is_accounted_for(
        self, root_files: int, folders: list[int], max_lines: int
    ) -> None:
        result = overview(
            _entries(root_files, folders), RUSSIAN.files_more_in_folder, max_lines=max_lines
        )
        assert len(result.lines) <= max_lines
        assert _accounted(result.lines, result.hidden_files) == result.files

"""Upload temp files left by a killed run are removed at start-up, and nothing else is."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bot.telegram.upload_parts import part_path, remove_abandoned


class TestAbandonedUploads:
    def test_only_old_upload_parts_are_removed(self, tmp_path: Path) -> None:
        (tmp_path / "docs").mkdir()
        old = part_path(tmp_path / "docs")
        old.write_bytes(b"half a file")
        hour_ago = time.time() - 7_200
        os.utime(old, (hour_ago, hour_ago))
        fresh = part_path(tmp_path)
        fresh.write_bytes(b"still arriving")
        kept = tmp_path / "docs" / "report.part"
        kept.write_text("a document whose name merely ends in .part", encoding="utf-8")
        os.utime(kept, (hour_ago, hour_ago))
        hidden = tmp_path / ".upload-notes.txt"
        hidden.write_text("not an upload part", encoding="utf-8")
        os.utime(hidden, (hour_ago, hour_ago))

        assert remove_abandoned(tmp_path) == 1
        assert not old.exists()
        assert fresh.exists()
        assert kept.exists()
        assert hidden.exists()

    def test_links_out_of_the_folder_are_not_followed(self, tmp_path: Path) -> None:
        outside = tmp_path / "outside"
        outside.mkdir()
        stray = part_path(outside)
        stray.write_bytes(b"x")
        hour_ago = time.time() - 7_200
        os.utime(stray, (hour_ago, hour_ago))
        root = tmp_path / "root"
        root.mkdir()
        (root / "link").symlink_to(outside, target_is_directory=True)

        assert remove_abandoned(root) == 0
        assert stray.exists()

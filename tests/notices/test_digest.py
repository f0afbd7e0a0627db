"""A batch of changes as one subscriber sees it: net effect per document, moves paired, and
nothing named that the subscriber may not see."""

from __future__ import annotations

from bot.digests.notices.changes import FolderChanges, FolderId, Snapshot, changes_between
from bot.digests.notices.digest import Item, digest
from bot.digests.notices.schedule import due
from bot.storage.notices import Change, NoticedChange, Subscription


def everything(path: str) -> bool:
    del path
    return True


def added(path: str, size: int = 1, mtime: int = 7) -> Change:
    return Change(path, "added", size, mtime)


def removed(path: str, size: int = 1, mtime: int = 7) -> Change:
    return Change(path, "removed", size, mtime)


class TestDigest:
    def test_only_the_net_effect_of_each_path_counts(self) -> None:
        told = digest(
            "",
            [
                added("a.txt"),
                Change("a.txt", "changed", 2, 8),
                added("tmp.txt", 5),
                removed("tmp.txt", 5),
                removed("b.txt", 3),
                added("b.txt", 4),
            ],
            everything,
        )
        assert told.items == (Item("added", "a.txt"), Item("changed", "b.txt"))

    def test_a_move_is_paired_by_size_and_time_the_same_name_first(self) -> None:
        told = digest(
            "",
            [removed("x/report.pdf"), removed("x/other.pdf"), added("y/report.pdf")],
            everything,
        )
        assert told.items == (
            Item("moved", "y/report.pdf", "x/report.pdf"),
            Item("removed", "x/other.pdf"),
        )

    def test_what_may_not_be_seen_is_left_out_before_pairing(self) -> None:
        def shows(path: str) -> bool:
            return path.startswith("hr/")

        told = digest(
            "",
            [removed("secret/a.txt"), added("hr/a.txt"), removed("hr/b.txt", 2), added("x/b", 2)],
            shows,
        )
        assert told.items == (Item("added", "hr/a.txt"), Item("removed", "hr/b.txt"))

    def test_only_the_subscribed_folder_counts(self) -> None:
        told = digest("hr", [added("hr/a.txt"), added("hrm/b.txt"), added("c.txt")], everything)
        assert told.items == (Item("added", "hr/a.txt"),)


class TestFolderChanges:
    def test_the_first_look_after_the_first_scan_is_the_starting_point(self) -> None:
        snapshots: list[Snapshot] = [{"a": (1, 1)}]
        scanned = [False]
        source = FolderChanges(lambda: snapshots[-1], lambda: scanned[0])
        assert source.look() == []
        scanned[0] = True
        assert source.look() == []
        snapshots.append({"a": (2, 2), "b": (1, 1)})
        assert source.look() == [Change("a", "changed", 2, 2), Change("b", "added", 1, 1)]
        assert source.look() == []

    def test_a_folder_that_looks_empty_is_not_everything_removed(self) -> None:
        snapshots: list[Snapshot] = [{"a": (1, 1), "b": (1, 1)}]
        source = FolderChanges(lambda: snapshots[-1], lambda: True)
        source.look()
        snapshots.append({})
        assert source.look() == []
        snapshots.append({"a": (1, 1), "c": (1, 1)})
        assert source.look() == [Change("b", "removed", 1, 1), Change("c", "added", 1, 1)]

    def test_the_same_folder_emptied_is_its_last_files_removed(self) -> None:
        snapshots: list[Snapshot] = [{"a": (1, 1), "b": (1, 1)}]
        source = FolderChanges(lambda: snapshots[-1], lambda: True, lambda: (7, 42))
        source.look()
        snapshots.append({})
        assert source.look() == [Change("a", "removed", 1, 1), Change("b", "removed", 1, 1)]
        snapshots.append({"c": (1, 1)})
        assert source.look() == [Change("c", "added", 1, 1)]

    def test_another_directory_in_its_place_is_not_everything_removed(self) -> None:
        snapshots: list[Snapshot] = [{"a": (1, 1)}]
        directory: list[FolderId | None] = [(7, 42)]
        source = FolderChanges(lambda: snapshots[-1], lambda: True, lambda: directory[-1])
        source.look()
        snapshots.append({})
        for elsewhere in ((8, 2), None):  # another disk's mount point; or unreadable
            directory.append(elsewhere)
            assert source.look() == []
        directory.append((7, 42))
        snapshots.append({"a": (1, 1), "c": (1, 1)})
        assert source.look() == [Change("c", "added", 1, 1)]

    def test_a_folder_empty_after_a_restart_is_not_everything_removed(self) -> None:
        source = FolderChanges(dict, lambda: True, lambda: (7, 42))
        source.start({"a": (1, 1)})  # seen by the last run: which directory is not known
        assert source.look() == []

    def test_a_remembered_starting_point_tells_what_changed_since(self) -> None:
        source = FolderChanges(lambda: {"a": (2, 2), "c": (1, 1)}, lambda: True)
        source.start({"a": (1, 1), "b": (1, 1)})
        source.start({})
        assert source.look() == [
            Change("a", "changed", 2, 2),
            Change("b", "removed", 1, 1),
            Change("c", "added", 1, 1),
        ]
        assert source.look() == []

    def test_a_folder_empty_at_start_is_compared_with_the_remembered_one(self) -> None:
        snapshots: list[Snapshot] = [{}]
        source = FolderChanges(lambda: snapshots[-1], lambda: True)
        source.start({"a": (1, 1)})
        assert source.look() == []
        snapshots.append({"a": (1, 1), "b": (1, 1)})
        assert source.look() == [Change("b", "added", 1, 1)]

    def test_changes_between_two_snapshots(self) -> None:
        assert changes_between({"a": (1, 1)}, {"a": (1, 1)}) == []


class TestDue:
    subscription = Subscription(1, None, "hr", 1, "ru", sent_through=0)

    def test_changes_elsewhere_move_the_subscription_past_them_silently(self) -> None:
        changes = [NoticedChange(1, added("it/a"), 0.0), NoticedChange(2, added("b"), 0.0)]
        found = due(self.subscription, changes, 0.0, 300.0)
        assert found is not None and found.changes == () and found.through == 2

    def test_its_folder_waits_for_quiet_or_for_the_longest_wait(self) -> None:
        changes = [NoticedChange(1, added("hr/a"), 0.0), NoticedChange(2, added("hr/b"), 200.0)]
        assert due(self.subscription, changes, 499.0, 300.0) is None
        found = due(self.subscription, changes, 500.0, 300.0)
        assert found is not None and [c.id for c in found.changes] == [1, 2]
        assert due(self.subscription, changes, 250.0, 300.0, max_delay_s=250.0) is not None

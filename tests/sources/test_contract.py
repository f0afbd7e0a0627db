"""The rules every kind of source keeps, checked against a real server of each kind.

A listing is complete or an error: a server stopped, or dying in the middle of its reply, gives
`SourceError`, never a shorter list that the mirror would read as deletions. Items added,
changed, renamed and deleted at the source show in the next listing; a rename keeps the item's
id or its content hash, so the mirror moves the file instead of fetching it again. Wrong
credentials give one line that says so; no error names a credential.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from bot.documents.sources.remote import RemoteItem, Source, SourceError
from tests.sources.servers.remote import Remote


async def _listed(source: Source) -> list[RemoteItem]:
    return await source.listing()


async def _text(source: Source, item: RemoteItem, tmp_path: Path) -> str:
    target = tmp_path / f"fetched-{uuid.uuid4().hex}"
    await source.fetch(item, target)
    return (await asyncio.to_thread(target.read_bytes)).decode("utf-8", "replace")


async def _holding(source: Source, text: str, tmp_path: Path) -> RemoteItem:
    """The one listed item whose content holds `text`."""
    found = [i for i in await _listed(source) if text in await _text(source, i, tmp_path)]
    assert len(found) == 1, f"{len(found)} items hold {text!r}"
    return found[0]


def _clean(error: SourceError, remote: Remote) -> None:
    line = str(error)
    assert line.strip() and "\n" not in line
    for secret in remote.secrets:
        assert secret not in line
        assert secret not in repr(error)


async def test_an_empty_source_lists_nothing(remote: Remote) -> None:
    source = remote.source()
    try:
        assert await _listed(source) == []
    finally:
        await source.close()


async def test_items_put_at_the_source_are_listed_and_fetched_whole(
    remote: Remote, tmp_path: Path
) -> None:
    remote.put("hr/leave.txt", "Отпуск — 28 календарных дней.")
    remote.put("it/vpn.txt", "VPN: vpn.example.com " + "x" * 200_000)
    source = remote.source()
    try:
        items = await _listed(source)
        assert len(items) == 2
        leave = await _holding(source, "28 календарных", tmp_path)
        vpn = await _holding(source, "vpn.example.com", tmp_path)
        assert vpn.size > 200_000
        assert leave.size == len((await _text(source, leave, tmp_path)).encode())
        if remote.abilities.paths:
            assert {i.path for i in items} == {"hr/leave.txt", "it/vpn.txt"}
        assert all(not i.path.startswith("/") and ".." not in i.path.split("/") for i in items)
        assert len({i.item_id for i in items}) == 2
    finally:
        await source.close()


async def test_a_change_at_the_source_changes_the_version(remote: Remote, tmp_path: Path) -> None:
    if not remote.abilities.change:
        pytest.skip(f"{remote.kind}: items cannot change in place")
    remote.put("policy.txt", "version one")
    source = remote.source()
    try:
        before = await _holding(source, "version one", tmp_path)
        remote.put("policy.txt", "version two, longer")
        after = await _holding(source, "version two", tmp_path)
        assert after.version != before.version
        assert after.item_id == before.item_id
        assert after.path == before.path
    finally:
        await source.close()


async def test_a_rename_keeps_the_id_or_the_content_hash(remote: Remote, tmp_path: Path) -> None:
    if not remote.abilities.rename:
        pytest.skip(f"{remote.kind}: items cannot be renamed at the source")
    remote.put("drafts/contract.txt", "the contract's text")
    source = remote.source()
    try:
        before = await _holding(source, "contract's text", tmp_path)
        remote.rename("drafts/contract.txt", "signed/contract-2026.txt")
        after = await _holding(source, "contract's text", tmp_path)
        assert after.path == "signed/contract-2026.txt"
        assert "drafts/contract.txt" not in {i.path for i in await _listed(source)}
        same_id = after.item_id == before.item_id
        same_hash = after.content_hash is not None and after.content_hash == before.content_hash
        assert same_id or same_hash
    finally:
        await source.close()


async def test_a_deletion_at_the_source_leaves_the_listing(remote: Remote, tmp_path: Path) -> None:
    remote.put("keep.txt", "stays")
    remote.put("gone.txt", "goes")
    source = remote.source()
    try:
        await _holding(source, "goes", tmp_path)
        remote.delete("gone.txt")
        items = await _listed(source)
        assert len(items) == 1
        assert "stays" in await _text(source, items[0], tmp_path)
    finally:
        await source.close()


async def test_a_stopped_server_is_an_error_not_an_empty_listing(remote: Remote) -> None:
    remote.put("a.txt", "a")
    source = remote.source()
    try:
        assert len(await _listed(source)) == 1
        remote.stop()
        with pytest.raises(SourceError) as caught:
            await _listed(source)
        assert caught.value.problem in ("unreachable", "timeout")
        _clean(caught.value, remote)
    finally:
        await source.close()


async def test_a_server_dying_mid_listing_is_an_error_not_a_shorter_listing(
    remote: Remote,
) -> None:
    for n in range(40):
        remote.put(f"folder-{n % 4}/file-{n:02}.txt", f"file {n}")
    source = remote.source()
    try:
        before = remote.served()
        assert len(await _listed(source)) == 40
        whole = remote.served() - before
        remote.cut_after(whole // 2)
        with pytest.raises(SourceError) as caught:
            await _listed(source)
        _clean(caught.value, remote)
        remote.cut_after(None)
        assert len(await _listed(source)) == 40
    finally:
        await source.close()


async def test_wrong_credentials_are_one_clear_line(remote: Remote) -> None:
    remote.put("a.txt", "a")
    source = remote.source(wrong_credentials=True)
    try:
        with pytest.raises(SourceError) as caught:
            await _listed(source)
        assert caught.value.problem == "auth"
        _clean(caught.value, remote)
    finally:
        await source.close()


async def test_no_credential_shows_in_the_source_itself(remote: Remote) -> None:
    source = remote.source()
    try:
        for secret in remote.secrets:
            assert secret not in repr(source)
            assert secret not in str(source)
    finally:
        await source.close()

"""The S3 kind beyond the contract: exact bytes, what a multipart ETag means, a missing bucket
and a key the source's policy does not cover."""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

import pytest

from bot.documents.sources.remote import SourceError
from tests.sources.servers.remote import failed_listing
from tests.sources.servers.s3 import S3Remote


async def test_a_fetch_writes_the_exact_bytes(remote_s3: S3Remote, tmp_path: Path) -> None:
    data = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" + secrets.token_bytes(300_000) + b"\n%%EOF\n"
    remote_s3.put_bytes("scans/contract.pdf", data)
    source = remote_s3.source()
    try:
        [item] = await source.listing()
        assert item.path == "scans/contract.pdf"
        assert item.content_hash == "md5:" + hashlib.md5(data).hexdigest()
        target = tmp_path / "mirror" / "scans" / ".contract.pdf.part"
        target.parent.mkdir(parents=True)
        await source.fetch(item, target)
        assert target.read_bytes() == data
        assert item.size == len(data)
    finally:
        await source.close()


async def test_a_multipart_etag_is_a_version_not_a_content_hash(remote_s3: S3Remote) -> None:
    remote_s3.put_in_parts("big.bin", secrets.token_bytes(1000))
    source = remote_s3.source()
    try:
        [item] = await source.listing()
        assert "-" in item.version
        assert item.content_hash is None
    finally:
        await source.close()


async def test_a_bucket_that_is_not_there_is_missing(remote_s3: S3Remote) -> None:
    source = remote_s3.source(bucket="contract-no-such-bucket")
    error = await failed_listing(source)
    assert error.problem == "missing"
    assert "'contract-no-such-bucket': the listing: the bucket is not there" in str(error)


async def test_an_object_the_keys_may_not_read_is_refused(
    remote_s3: S3Remote, tmp_path: Path
) -> None:
    source = remote_s3.source(prefix="elsewhere")
    try:
        [item] = await source.listing()
        assert (item.path, item.item_id) == ("outside.txt", "elsewhere/outside.txt")
        with pytest.raises(SourceError) as caught:
            await source.fetch(item, tmp_path / "t")
        assert caught.value.problem == "refused"
        assert "object 'elsewhere/outside.txt': access denied" in str(caught.value)
    finally:
        await source.close()

"""An S3 bucket, or a prefix of one, as a source: AWS, MinIO, any S3-compatible server.

The listing is ListObjectsV2 under the prefix, every page of it, or an error: a pagination that
breaks off raises instead of handing back the pages it had. S3 has no id that survives a
rename (a rename is a copy to a new key), so the key is the item's id; the ETag is its version,
and when the ETag is a plain MD5 (an object uploaded in one part) it is also the content hash,
which lets the mirror recognise a renamed object as a move.

boto3 is synchronous, so each listing and fetch runs in a worker thread; the client's connect
and read timeouts and its retries are bounded by the source's `timeout_s`. botocore's own
messages may quote the request, so every error is worded here from its code alone.
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
    ResponseStreamingError,
)

from bot.documents.sources.config import Credentials, S3Config
from bot.documents.sources.remote import Problem, RemoteItem, Source, SourceError

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.type_defs import ObjectTypeDef

log = logging.getLogger(__name__)

_ATTEMPTS = 2
_CHUNK = 1 << 20
_MD5 = re.compile(r"[0-9a-f]{32}")
_CODES: dict[str, tuple[Problem, str]] = {
    "InvalidAccessKeyId": ("auth", "the access key is not known"),
    "InvalidClientTokenId": ("auth", "the access key is not known"),
    "SignatureDoesNotMatch": ("auth", "the secret key does not match the access key"),
    "InvalidToken": ("auth", "the credentials were refused"),
    "ExpiredToken": ("auth", "the credentials have expired"),
    "AccessDenied": ("refused", "access denied: the keys lack a permission"),
    "AllAccessDisabled": ("refused", "all access to the bucket is disabled"),
    "NoSuchBucket": ("missing", "the bucket is not there"),
    "NoSuchKey": ("missing", "the object is gone"),
    "PermanentRedirect": ("refused", "the bucket is in another region: set its region"),
    "AuthorizationHeaderMalformed": ("refused", "the bucket is in another region: set it"),
    "SlowDown": ("refused", "the server asks to slow down"),
    "InvalidObjectState": ("refused", "the object is archived: restore it first"),
}


def open_s3(config: S3Config, credentials: Credentials) -> Source:
    """The bucket `config.bucket` under `config.prefix`, with the keys the file names.

    Without keys named in the file, boto3's own chain applies (AWS_* variables, the instance's
    role), as on an EC2 machine. The prefix is a folder: `contracts` means `contracts/`.

    Raises:
        SourceSecretError: a key's variable or file is missing.
    """
    key_id = credentials.read(
        config.name, "access key id", config.access_key_id_env, config.access_key_id_file
    )
    secret = credentials.read(
        config.name,
        "secret access key",
        config.secret_access_key_env,
        config.secret_access_key_file,
    )
    per_try = config.timeout_s / _ATTEMPTS
    settings = Config(
        connect_timeout=min(per_try, 10.0),
        read_timeout=per_try,
        retries={"total_max_attempts": _ATTEMPTS, "mode": "standard"},
        # Servers other than AWS (MinIO, moto, most others) expect the bucket in the path.
        s3={"addressing_style": "path" if config.endpoint_url else "auto"},
    )
    client: S3Client = boto3.session.Session().client(
        "s3",
        endpoint_url=config.endpoint_url,
        region_name=config.region,
        aws_access_key_id=key_id.get_secret_value() if key_id else None,
        aws_secret_access_key=secret.get_secret_value() if secret else None,
        config=settings,
    )
    host = (urlsplit(config.endpoint_url).hostname or "?") if config.endpoint_url else "AWS"
    prefix = config.prefix.lstrip("/")
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    return S3Source(config.name, client, host, config.bucket, prefix)


class S3Source:
    """One bucket prefix: its keys listed page by page, its objects fetched with GetObject."""

    def __init__(self, name: str, client: S3Client, host: str, bucket: str, prefix: str) -> None:
        self.name = name
        self._client = client
        self._host = host
        self._bucket = bucket
        self._prefix = prefix

    def __repr__(self) -> str:
        return f"S3Source(name={self.name!r}, host={self._host!r}, bucket={self._bucket!r})"

    async def listing(self) -> list[RemoteItem]:
        """Every object under the prefix, or `SourceError` if any page failed."""
        return await asyncio.to_thread(self._list)

    async def fetch(self, item: RemoteItem, target: Path) -> None:
        """GetObject into `target`; a body cut short raises rather than writing less."""
        await asyncio.to_thread(self._download, item.item_id, target)

    async def close(self) -> None:
        """Close the client's connection pool."""
        await asyncio.to_thread(self._client.close)

    def _list(self) -> list[RemoteItem]:
        items: list[RemoteItem] = []
        pages = self._client.get_paginator("list_objects_v2").paginate(
            Bucket=self._bucket, Prefix=self._prefix
        )
        try:
            for page in pages:
                for entry in page.get("Contents", []):
                    item = self._item(entry)
                    if item is not None:
                        items.append(item)
        except (BotoCoreError, ClientError) as exc:
            raise self._failed(exc, "the listing") from None
        return items

    def _item(self, entry: ObjectTypeDef) -> RemoteItem | None:
        """A listed object as the mirror sees it; None for a folder marker or a key that
        cannot be a path (an empty or `..` part)."""
        key = entry["Key"]
        path = key[len(self._prefix) :]
        if not path or key.endswith("/"):
            return None
        if any(part in ("", ".", "..") for part in path.split("/")):
            log.warning("source %s: key %r skipped: it cannot be a file's path", self.name, key)
            return None
        etag = entry.get("ETag", "").strip('"')
        modified = entry.get("LastModified")
        size = entry.get("Size", 0)
        return RemoteItem(
            item_id=key,
            path=path,
            size=size,
            version=etag or f"{size}-{modified.timestamp() if modified else 0:.0f}",
            modified=modified.timestamp() if modified else 0.0,
            content_hash=f"md5:{etag.lower()}" if _MD5.fullmatch(etag.lower()) else None,
        )

    def _download(self, key: str, target: Path) -> None:
        where = f"object {key!r}"
        try:
            body = self._client.get_object(Bucket=self._bucket, Key=key)["Body"]
            with body, target.open("wb") as out:
                for chunk in body.iter_chunks(_CHUNK):
                    out.write(chunk)
        except (BotoCoreError, ClientError) as exc:
            raise self._failed(exc, where) from None

    def _failed(self, exc: BotoCoreError | ClientError, where: str) -> SourceError:
        """A botocore error, worded from its code or type: its text may quote the request."""
        problem: Problem
        if isinstance(exc, ClientError):
            code = str(exc.response.get("Error", {}).get("Code", ""))
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
            if code in _CODES:
                problem, what = _CODES[code]
            elif status in (401, 403):
                problem, what = "auth", "the credentials were refused"
            elif status == 404:
                problem, what = "missing", "not found"
            elif 400 <= status < 500:
                problem, what = "refused", "refused"
            else:
                problem, what = "broken", "the server failed"
            detail = f"{code or 'error'}, HTTP {status}" if status else code or "error"
            what = f"{where}: {what} ({detail})"
        elif isinstance(exc, ConnectTimeoutError | ReadTimeoutError):
            problem, what = "timeout", f"{where}: no answer in time"
        elif isinstance(exc, EndpointConnectionError):
            problem, what = "unreachable", "cannot connect to the server"
        elif isinstance(exc, ConnectionClosedError | ResponseStreamingError):
            problem, what = "unreachable", f"{where}: the server dropped the connection"
        elif isinstance(exc, NoCredentialsError):
            problem, what = "auth", "no access keys: name them in the sources file"
        else:
            problem, what = "broken", f"{where}: the server's answer cannot be read"
        return SourceError(problem, f"S3 {self._host} bucket {self._bucket!r}: {what}")

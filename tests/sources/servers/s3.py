"""A real S3 server (moto's, in a child process) on loopback, behind a `CuttingProxy`.

moto accepts any key unless its IAM checks are on, so the server starts open, two IAM users are
made through its IAM API — `admin`, who plays the person at the source, and `mirror`, whose keys
the source uses, holding only the least policy of docs/sources/s3.md (as far as moto can check
it) — and then the checks are switched on: from there a key moto does not know, or a wrong
secret, is refused as AWS refuses it. One server serves every test of a test process (it
takes a second or two to start); each test gets its own bucket and its own proxy, so stopping
"the server" is closing that proxy: the source finds nobody, as it would with the server gone.
"""

from __future__ import annotations

import json
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import boto3
import pytest

from bot.documents.sources.config import S3Config
from bot.documents.sources.remote import Source
from tests.fakes.ports import free_port
from tests.sources.servers.cutting_proxy import CuttingProxy
from tests.sources.servers.listening import end, start_listening
from tests.sources.servers.remote import Abilities, BehindProxy, Configured

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

PREFIX = "docs/"
REGION = "us-east-1"


def _least_policy() -> str:
    """What the source needs, as docs/sources/s3.md gives it, for any test bucket, bent to
    moto's two gaps: it cannot evaluate the `s3:prefix` condition on ListBucket (it denies any
    statement with a condition), and it checks a listing against `s3:ListObjectsV2`, the call's
    name, where AWS checks `s3:ListBucket`."""
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": ["s3:ListBucket", "s3:ListObjectsV2"],
                    "Resource": "arn:aws:s3:::contract-*",
                },
                {
                    "Effect": "Allow",
                    "Action": "s3:GetObject",
                    "Resource": f"arn:aws:s3:::contract-*/{PREFIX}*",
                },
            ],
        }
    )


class MotoServer:
    """moto's server with IAM checks on, an `admin` and a `mirror` user with their keys."""

    def __init__(self, work: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._process = start_listening(
            ["-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            self.port,
            work / "moto.log",
        )
        try:
            self.admin = self._users()
        except BaseException:
            end(self._process)
            raise

    def _users(self) -> S3Client:
        """Make the users and their keys, then switch the checks on; the admin's client."""
        iam = boto3.client(
            "iam",
            endpoint_url=self.url,
            region_name=REGION,
            aws_access_key_id="setup",
            aws_secret_access_key="setup",
        )
        everything = json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
            }
        )
        keys: dict[str, tuple[str, str]] = {}
        for user, policy in (("admin", everything), ("mirror", _least_policy())):
            iam.create_user(UserName=user)
            iam.put_user_policy(UserName=user, PolicyName="access", PolicyDocument=policy)
            made = iam.create_access_key(UserName=user)["AccessKey"]
            keys[user] = (made["AccessKeyId"], made["SecretAccessKey"])
        iam.close()
        self.admin_keys, self.mirror_keys = keys["admin"], keys["mirror"]
        checks_on = urllib.request.Request(
            f"{self.url}/moto-api/reset-auth",
            data=b"0",
            headers={"Content-Type": "text/plain"},
            method="POST",
        )
        with urllib.request.urlopen(checks_on, timeout=10) as reply:
            assert reply.status == 200
        return boto3.client(
            "s3",
            endpoint_url=self.url,
            region_name=REGION,
            aws_access_key_id=self.admin_keys[0],
            aws_secret_access_key=self.admin_keys[1],
        )

    def close(self) -> None:
        self.admin.close()
        end(self._process)


class S3Remote(BehindProxy):
    """A bucket of its own on the shared moto server, behind a proxy of its own."""

    kind = "s3"
    abilities = Abilities()

    def __init__(self, server: MotoServer) -> None:
        self._server = server
        self._s3 = server.admin
        self.bucket = f"contract-{uuid.uuid4().hex[:12]}"
        self._s3.create_bucket(Bucket=self.bucket)
        self._s3.put_object(Bucket=self.bucket, Key="elsewhere/outside.txt", Body=b"not ours")
        self._s3.put_object(Bucket=self.bucket, Key=PREFIX + "folder-marker/", Body=b"")
        self._proxy = CuttingProxy(server.port)

    def put(self, name: str, text: str) -> None:
        self.put_bytes(name, text.encode())

    def put_bytes(self, name: str, data: bytes) -> None:
        """Create or replace `name` holding `data` (a binary file)."""
        self._s3.put_object(Bucket=self.bucket, Key=PREFIX + name, Body=data)

    def put_in_parts(self, name: str, data: bytes) -> None:
        """Upload `name` as a multipart upload (one part): its ETag is not an MD5."""
        key = PREFIX + name
        upload = self._s3.create_multipart_upload(Bucket=self.bucket, Key=key)["UploadId"]
        part = self._s3.upload_part(
            Bucket=self.bucket, Key=key, UploadId=upload, PartNumber=1, Body=data
        )
        self._s3.complete_multipart_upload(
            Bucket=self.bucket,
            Key=key,
            UploadId=upload,
            MultipartUpload={"Parts": [{"ETag": part["ETag"], "PartNumber": 1}]},
        )

    def delete(self, name: str) -> None:
        self._s3.delete_object(Bucket=self.bucket, Key=PREFIX + name)

    def rename(self, old: str, new: str) -> None:
        self._s3.copy_object(
            Bucket=self.bucket,
            Key=PREFIX + new,
            CopySource={"Bucket": self.bucket, "Key": PREFIX + old},
        )
        self.delete(old)

    def stop(self) -> None:
        self._proxy.close()

    def requests(self) -> int:
        """HTTP requests the source has sent to the server so far (through the proxy)."""
        return self._proxy.requests

    def configured(
        self, *, wrong_credentials: bool = False, prefix: str = PREFIX, bucket: str | None = None
    ) -> Configured:
        """This bucket's `prefix` (or another `bucket`) as a source, with `mirror`'s keys."""
        key_id, secret = self._server.mirror_keys
        config = S3Config(
            name="contracts",
            kind="s3",
            endpoint_url=f"http://127.0.0.1:{self._proxy.port}",
            region=REGION,
            bucket=bucket or self.bucket,
            prefix=prefix,
            access_key_id_env="S3_KEY_ID",
            secret_access_key_env="S3_SECRET",
            timeout_s=10,
        )
        env = {"S3_KEY_ID": key_id, "S3_SECRET": secret[::-1] if wrong_credentials else secret}
        return Configured(config, env)

    def source(
        self, *, wrong_credentials: bool = False, prefix: str = PREFIX, bucket: str | None = None
    ) -> Source:
        """Our source on this bucket's `prefix` (or on another `bucket`), as `mirror`."""
        return self.configured(
            wrong_credentials=wrong_credentials, prefix=prefix, bucket=bucket
        ).open()

    @property
    def secrets(self) -> list[str]:
        return [self._server.mirror_keys[1], self._server.admin_keys[1]]

    def close(self) -> None:
        self._proxy.close()


@pytest.fixture(scope="session")
def moto_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoServer]:
    """One moto server with IAM checks on, for every S3 test of the test process: each test
    has a bucket and a proxy of its own, so none sees another's, and the second or two moto
    takes to start is paid once per process rather than once per module."""
    server = MotoServer(tmp_path_factory.mktemp("moto"))
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def remote_s3(moto_server: MotoServer) -> Iterator[S3Remote]:
    """An empty prefix of a fresh bucket on the shared moto server."""
    remote = S3Remote(moto_server)
    try:
        yield remote
    finally:
        remote.close()

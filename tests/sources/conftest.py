"""The contract suite's `remote` fixture: one real server per kind, started on loopback.

Each kind's module under `servers/` defines a fixture named `remote_<kind>` that yields a
`Remote`; `KINDS` lists them, and `remote` is parametrised over the list, so every test of
`test_contract.py` runs against every kind. A kind whose server cannot start here (a missing
system package) skips with the command that installs it.
"""

from __future__ import annotations

import pytest

from tests.sources.servers.imap import remote_imap
from tests.sources.servers.rclone import remote_rclone
from tests.sources.servers.remote import Remote
from tests.sources.servers.s3 import moto_server, remote_s3
from tests.sources.servers.webdav import remote_webdav

__all__ = ["moto_server", "remote", "remote_imap", "remote_rclone", "remote_s3", "remote_webdav"]

KINDS: list[str] = ["webdav", "s3", "imap", "rclone"]
"""The `remote_<kind>` fixtures the suite runs against, one per kind (and per rclone server)."""


@pytest.fixture(params=KINDS)
def remote(request: pytest.FixtureRequest) -> Remote:
    """A real server of each kind in turn, holding nothing yet."""
    found: Remote = request.getfixturevalue(f"remote_{request.param}")
    return found

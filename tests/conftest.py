"""Shared test set-up: no test may reach beyond the loopback interface."""

from __future__ import annotations

import gc
import ipaddress
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

BYTECODE_CACHE = Path(__file__).resolve().parents[1] / ".pytest_cache" / "pycache"


def _keep_bytecode() -> None:
    """Cache compiled modules (pytest's rewritten test modules among them) across runs.

    Under PYTHONDONTWRITEBYTECODE every test process would rewrite and compile each test
    module again, which doubles collection in each of the `-n auto` workers. The cache goes
    to `.pytest_cache/pycache` (ignored by git), so the source tree stays free of bytecode
    as that setting asks; a PYTHONPYCACHEPREFIX of one's own is kept.
    """
    if sys.dont_write_bytecode:
        sys.pycache_prefix = sys.pycache_prefix or str(BYTECODE_CACHE)
        sys.dont_write_bytecode = False


_keep_bytecode()

pytest_plugins = [
    "tests.fakes.sandbox_fixtures",
    "tests.fakes.fixtures",
    "tests.fakes.postgres_fixtures",
]

_SECRET_ENV = (
    "BOT_TOKEN",
    "OPENAI_API_KEY",
    "WEBHOOK_SECRET",
    "OPENAI_BASE_URL",
    "DATABASE_URL",
    "EMBEDDING_MODEL",
    "EMBEDDING_BASE_URL",
    "EMBEDDING_API_KEY",
)

WORKERS_PER_CORE = 2
"""Test processes per core: most of the suite's long tests wait on other processes (a bot
started and stopped, a worker killed, a database), so two per core keep the cores busy."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: twice the cores this process may run on, since the tests mostly wait."""
    del config
    return WORKERS_PER_CORE * len(os.sched_getaffinity(0))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Set what collection imported aside from the cycle collector, as the bot does with its
    start-up heap (`bot.process.heap`).

    A test process holds every test module, the bot and its libraries for its whole life; each
    full collection walked all of it again, a good part of what starting a dispatcher costs.
    """
    del session
    # Hypothesis checks, when it loads, that something refers to each random generator it is
    # handed (trio's among them); a frozen object's referrers are hidden from that check.
    import hypothesis  # noqa: F401, PLC0415

    gc.collect()
    gc.freeze()


def _is_loopback(address: Any) -> bool:
    if isinstance(address, tuple) and address:
        host = str(address[0])
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False
    return isinstance(address, (str, bytes))  # unix sockets stay on this machine


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail any connection to a non-loopback address, so no test touches the internet."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if not _is_loopback(address):
            msg = f"tests may only connect to loopback addresses, not {address!r}"
            raise ConnectionRefusedError(msg)
        real_connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        if not _is_loopback(address):
            msg = f"tests may only connect to loopback addresses, not {address!r}"
            raise ConnectionRefusedError(msg)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    yield


@pytest.fixture(autouse=True)
def _clean_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Run every test away from the developer's own `.env` and secrets."""
    for name in _SECRET_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))

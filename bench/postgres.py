"""A throwaway PostgreSQL for the benchmarks that cannot outlive the benchmark.

`pg_ctl start` daemonizes the server, so a benchmark killed halfway left it running. Here
`postgres` runs as our own child: the kernel sends it SIGQUIT (immediate shutdown) when we die,
however we die, and SIGTERM or SIGINT stop it and remove its folder before taking their usual
course. `TEST_DATABASE_URL` is not used: a benchmark measures a server of its own.
"""

from __future__ import annotations

import math
import shlex
import shutil
import signal
import subprocess
import time
from urllib.parse import urlsplit, urlunsplit

from bench import tether
from bench.processes import tree_cpu_seconds
from tests.fakes.ports import free_port
from tests.fakes.postgres import SERVER_OPTIONS, THROWAWAY_OPTIONS, Cluster, new_cluster

_READY_S = 60.0
_STOP_S = 30.0
_PORT_ATTEMPTS = 3


class BenchPostgres:
    """A running server, a child of this process, and the URL of its `postgres` database."""

    def __init__(self, cluster: Cluster, process: subprocess.Popen[bytes], port: int) -> None:
        self.cluster = cluster
        self.process = process
        self.admin_url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        tether.on_stop(id(self), self.stop)

    @classmethod
    def start(cls, *, durable: bool = False) -> BenchPostgres:
        """A new cluster and its server; raises `PostgresMissing` without PostgreSQL here.

        `durable` keeps PostgreSQL's own flushes, for storage measurements.
        """
        cluster = new_cluster()
        try:
            for _ in range(_PORT_ATTEMPTS):
                port = free_port()
                process = _launch(cluster, port, durable=durable)
                if _wait_ready(cluster, process):
                    return cls(cluster, process, port)
            msg = f"PostgreSQL found its port taken {_PORT_ATTEMPTS} times in a row"
            raise RuntimeError(msg)
        except BaseException:
            shutil.rmtree(cluster.folder, ignore_errors=True)
            raise

    @property
    def pid(self) -> int:
        """The postmaster's process id."""
        return self.process.pid

    def cpu_seconds(self) -> float:
        """CPU of the server and the backends alive now (NaN once it stopped)."""
        return tree_cpu_seconds(self.pid) if self.process.poll() is None else math.nan

    def url_of(self, database: str) -> str:
        """The URL of `database` on this server."""
        return database_url(self.admin_url, database)

    def stop(self) -> None:
        """Shut the server down at once (its data is thrown away) and remove its folder."""
        tether.forget(id(self))
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(timeout=_STOP_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.cluster.folder, ignore_errors=True)


def database_url(admin_url: str, database: str) -> str:
    """The URL of `database` on the server `admin_url` names, with its user and password."""
    return urlunsplit(urlsplit(admin_url)._replace(path=f"/{database}"))


def _launch(cluster: Cluster, port: int, *, durable: bool) -> subprocess.Popen[bytes]:
    options = f"-p {port} -k {cluster.folder} {SERVER_OPTIONS}"
    if not durable:
        options += f" {THROWAWAY_OPTIONS}"
    command = [str(cluster.binaries / "postgres"), "-D", str(cluster.data), *shlex.split(options)]
    with (cluster.folder / "server.log").open("ab") as log:
        return subprocess.Popen(
            command,
            user=cluster.user,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a Ctrl-C reaches us, and we stop it in order
            preexec_fn=tether.child_dying_with_us(signal.SIGQUIT),  # noqa: PLW1509 - prctl in the child, after setuid
        )


def _wait_ready(cluster: Cluster, process: subprocess.Popen[bytes]) -> bool:
    """True once the server accepts connections (`postmaster.pid` says `ready`); False when
    its port was taken meanwhile and another may be tried; raises otherwise."""
    deadline = time.monotonic() + _READY_S
    pid_file = cluster.data / "postmaster.pid"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = (cluster.folder / "server.log").read_text(errors="replace")
            if "could not bind" in said:
                return False
            msg = f"the benchmark's PostgreSQL did not start:\n{said[-2000:]}"
            raise RuntimeError(msg)
        try:
            lines = pid_file.read_text().splitlines()
        except OSError:
            lines = []
        if len(lines) >= 8 and lines[7].strip() == "ready":
            return True
        time.sleep(0.05)
    process.kill()
    process.wait()
    msg = f"the benchmark's PostgreSQL was not ready within {_READY_S:.0f} s"
    raise RuntimeError(msg)

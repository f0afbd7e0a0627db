"""A throwaway PostgreSQL server for the tests: `initdb` and `pg_ctl` on a temporary folder.

It listens on a free loopback port and, for tests, keeps no data worth keeping (fsync off), so
it starts in about a second and each test can have a fresh, empty database of its own. PostgreSQL
refuses to run as root, so under root the server runs as the `postgres` system user (or
`nobody`), which then owns the folder. `TEST_DATABASE_URL` names a server to use instead
(its user must be allowed to create databases). A server started with a `password` asks every
login for it, as a real deployment does; otherwise any login is let in.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

from tests.fakes.ports import free_port

_BINARIES = ("initdb", "pg_ctl")
SERVER_OPTIONS = "-c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=32MB"
THROWAWAY_OPTIONS = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"


class PostgresMissing(Exception):
    """No PostgreSQL here: neither binaries nor TEST_DATABASE_URL; the text says what to do."""


def find_binaries() -> Path:
    """The folder holding `initdb` and `pg_ctl`: on PATH, else Debian's newest version."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).resolve().parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    for folder in reversed(versions):
        if all((folder / name).exists() for name in _BINARIES):
            return folder
    msg = (
        "PostgreSQL tests need initdb and pg_ctl (Debian: apt-get install postgresql) "
        "or TEST_DATABASE_URL pointing at a server whose user may create databases"
    )
    raise PostgresMissing(msg)


def _run(program: Path, arguments: list[str], *, user: str | None) -> None:
    subprocess.run(
        [str(program), *arguments], user=user, check=True, capture_output=True, text=True
    )


def server_user() -> str | None:
    """Who runs the server: None for the current user, unless that is root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    msg = "running as root, and neither a `postgres` nor a `nobody` user exists to run the server"
    raise PostgresMissing(msg)


def _start_on_a_free_port(
    binaries: Path, data: str, folder: Path, *, durable: bool, user: str | None
) -> int:
    """Start the server on a port that was free a moment ago; the port it listens on.

    Another process (a parallel test worker, say) may take that port in between: then the
    start fails with "could not bind", and another free port is tried.
    """
    server_log = folder / "server.log"
    attempts_left = 3
    while True:
        attempts_left -= 1
        port = free_port()
        options = f"-p {port} -k {folder} {SERVER_OPTIONS}"
        if not durable:
            options += f" {THROWAWAY_OPTIONS}"
        try:
            _run(
                binaries / "pg_ctl",
                ["-D", data, "-l", str(server_log), "-o", options, "-w", "start"],
                user=user,
            )
        except subprocess.CalledProcessError:
            said = server_log.read_text(errors="replace") if server_log.exists() else ""
            if attempts_left == 0 or "could not bind" not in said:
                raise
            server_log.unlink()
        else:
            return port


@dataclass(frozen=True)
class Cluster:
    """A new, stopped database cluster: its folder, the binaries, the user who runs it."""

    folder: Path
    binaries: Path
    user: str | None

    @property
    def data(self) -> Path:
        return self.folder / "data"


def new_cluster(password: str | None = None) -> Cluster:
    """`initdb` in a new temporary folder, owned by the user the server will run as.

    Raises `PostgresMissing` without binaries, RuntimeError (the folder removed) when `initdb`
    fails. `password`: logins need it (the user `postgres` has it); else any login is let in.
    """
    binaries = find_binaries()
    user = server_user()
    folder = Path(tempfile.mkdtemp(prefix="pg-test-"))
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    authentication = ["-A", "trust"]
    if password is not None:
        password_file = folder / "password"
        password_file.write_text(password, encoding="utf-8")
        if user is not None:
            os.chown(password_file, entry.pw_uid, entry.pw_gid)
        authentication = ["-A", "scram-sha-256", f"--pwfile={password_file}"]
    arguments = ["-D", str(folder / "data"), *authentication, "-U", "postgres", "-E", "UTF8"]
    try:
        _run(binaries / "initdb", [*arguments, "--locale=C"], user=user)
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        msg = f"initdb failed: {exc.stderr or exc}"
        raise RuntimeError(msg) from exc
    return Cluster(folder, binaries, user)


@dataclass
class PostgresServer:
    """A running server and the URL of its maintenance database (`postgres`)."""

    admin_url: str
    folder: Path | None = None
    binaries: Path | None = None
    user: str | None = None
    _counter: int = field(default=0, repr=False)

    @classmethod
    def start(cls, *, durable: bool = False, password: str | None = None) -> PostgresServer:
        """Use TEST_DATABASE_URL if set, else start a new server; raises `PostgresMissing`.

        `durable` keeps PostgreSQL's own defaults (every commit flushed to disk), for
        measurements; tests skip the flushes. `password`: a new server whose logins need it
        (the user `postgres` has it), even when TEST_DATABASE_URL is set.
        """
        given = os.environ.get("TEST_DATABASE_URL", "").strip()
        if given and password is None:
            return cls(given)
        cluster = new_cluster(password)
        try:
            port = _start_on_a_free_port(
                cluster.binaries,
                str(cluster.data),
                cluster.folder,
                durable=durable,
                user=cluster.user,
            )
        except subprocess.CalledProcessError as exc:
            server_log = cluster.folder / "server.log"
            detail = server_log.read_text(errors="replace") if server_log.exists() else ""
            shutil.rmtree(cluster.folder, ignore_errors=True)
            msg = f"the test PostgreSQL did not start: {exc.stderr or exc}\n{detail}"
            raise RuntimeError(msg) from exc
        login = "postgres" if password is None else f"postgres:{quote(password, safe='')}"
        url = f"postgresql://{login}@127.0.0.1:{port}/postgres"
        return cls(url, cluster.folder, cluster.binaries, cluster.user)

    def url_of(self, database: str) -> str:
        """The URL of `database` on this server, with the admin URL's user and password."""
        parts = urlsplit(self.admin_url)
        return urlunsplit(parts._replace(path=f"/{database}"))

    def next_name(self) -> str:
        """A database name not used before in this run."""
        self._counter += 1
        return f"bot_test_{os.getpid()}_{self._counter}"

    def stop(self) -> None:
        """Stop a server this object started (immediately: its data is thrown away)."""
        if self.folder is None or self.binaries is None:
            return
        subprocess.run(
            [str(self.binaries / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate"]
            + ["stop"],
            user=self.user,
            check=False,
            capture_output=True,
        )
        shutil.rmtree(self.folder, ignore_errors=True)

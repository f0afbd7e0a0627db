"""Several webhook workers on one port: a parent binds the sockets, starts and watches them.

The parent binds one listening socket per worker, all on WEBHOOK_LISTEN with SO_REUSEPORT, and
hands each worker its own (inherited by `python -m bot run`, its number and descriptor in
`BOT_WORKER`). Why the parent binds rather than each worker: the kernel spreads connections
over the sockets of the group, so workers share the load evenly (one socket accepted by all
would let whichever worker wakes first take a whole burst of keep-alive connections); a taken
port is reported once, before any worker starts; and the sockets outlive their workers, so a
restarted worker takes up the connections waiting on its socket instead of the kernel
resetting them.

A worker that dies is started again after a pause that doubles with each quick failure (1 s up
to 30 s; a worker that ran for a minute starts from 1 s again); one that keeps failing at once
stops the whole bot, since no restart will help then. A worker that exits with
`exit_codes.FIX_SETTINGS` has said so itself (a refused token or database login, after its one
line): the parent stops the others at once and exits with the same code, starting nothing
again. DATA_DIR is brought to this version once, by the parent, before the workers open it.
SIGTERM or SIGINT is passed to every worker, which finishes its questions as a single process
does; the parent exits 0 when they all did. Only worker 0 calls setWebhook.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import socket
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass

from bot.datadir import upgrade
from bot.process import exit_codes
from bot.process.data_files import DataDirError, DataFiles
from bot.settings.model import Settings

log = logging.getLogger(__name__)

WORKER_ENV = "BOT_WORKER"
"""`index:fd` in a worker's environment: its number and the descriptor of its socket."""
FIRST_PAUSE_S = 1.0
LONGEST_PAUSE_S = 30.0
HEALTHY_AFTER_S = 60.0
"""A worker that ran this long is restarted after the shortest pause again."""
GIVE_UP_AFTER = 6
"""Quick failures in a row after which a worker is not started again, and the bot stops."""
_BACKLOG = 1024


@dataclass(frozen=True)
class WorkerSeat:
    """What a worker process was given: its number among the workers and its socket."""

    index: int
    fd: int

    def socket(self) -> socket.socket:
        """The listening socket the parent bound, taken over by this process."""
        return socket.socket(fileno=self.fd)


def worker_seat(environ: Mapping[str, str]) -> WorkerSeat | None:
    """This process's seat when a parent started it as a worker; None for the parent itself."""
    value = environ.get(WORKER_ENV)
    if not value:
        return None
    index, _, fd = value.partition(":")
    return WorkerSeat(int(index), int(fd))


def bind_sockets(host: str, port: int, count: int) -> list[socket.socket]:
    """`count` listening sockets on one address, in one SO_REUSEPORT group.

    Port 0 picks a free port for the first, and the others join it.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(family, socket.SOCK_STREAM)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((host, port))
            port = sock.getsockname()[1]
            sock.listen(_BACKLOG)
            sock.setblocking(False)
            sock.set_inheritable(True)
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class Supervisor:
    """Runs a worker on each of the sockets given until stopped; see the module docstring.

    `argv` is what the interpreter runs as a worker; `first_pause_s` the pause before the
    first restart (tests shorten it).
    """

    def __init__(
        self,
        sockets: list[socket.socket],
        environ: Mapping[str, str],
        *,
        argv: tuple[str, ...] = ("-m", "bot", "run"),
        first_pause_s: float = FIRST_PAUSE_S,
    ) -> None:
        self._sockets = sockets
        self._environ = dict(environ)
        self._argv = argv
        self._first_pause_s = first_pause_s
        self._stopping = asyncio.Event()
        self._processes: dict[int, asyncio.subprocess.Process] = {}
        self._failed = False
        self._to_fix = False

    def stop(self) -> None:
        """Stop every worker (each finishes its questions first) and return from `run`."""
        if not self._stopping.is_set():
            log.info("stopping %d workers", len(self._processes))
        self._stopping.set()
        for process in self._processes.values():
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)

    async def run(self) -> int:
        """Keep the workers running until `stop` (or one keeps failing); the exit code."""
        log.info("starting %d webhook workers (parent pid %d)", len(self._sockets), os.getpid())
        exits = await asyncio.gather(*(self._keep(i) for i in range(len(self._sockets))))
        if self._to_fix:
            return exit_codes.FIX_SETTINGS
        if self._failed or any(code != exit_codes.STOPPED for code in exits):
            return exit_codes.TRY_AGAIN
        return exit_codes.STOPPED

    async def _keep(self, index: int) -> int:
        """Run worker `index` again each time it dies, until stopping; its last exit code."""
        failures = 0
        while True:
            started = time.monotonic()
            process = await self._start(index)
            code = await process.wait()
            if self._stopping.is_set():
                log.info("worker %d (pid %d) stopped with exit code %d", index, process.pid, code)
                return code
            if code == exit_codes.FIX_SETTINGS:  # the worker logged why; a restart cannot help
                log.info(
                    "worker %d (pid %d) cannot run as set up; stopping the bot", index, process.pid
                )
                self._to_fix = True
                self.stop()
                return code
            failures = 1 if time.monotonic() - started >= HEALTHY_AFTER_S else failures + 1
            if failures >= GIVE_UP_AFTER:
                log.error(
                    "worker %d failed %d times in a row right after starting; stopping the bot",
                    index,
                    failures,
                )
                self._failed = True
                self.stop()
                return code
            pause = min(LONGEST_PAUSE_S, self._first_pause_s * 2 ** (failures - 1))
            log.warning(
                "worker %d (pid %d) %s; starting it again in %.1f s",
                index,
                process.pid,
                _how_it_ended(code),
                pause,
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), pause)
            if self._stopping.is_set():
                return 0

    async def _start(self, index: int) -> asyncio.subprocess.Process:
        sock = self._sockets[index]
        env = {**self._environ, WORKER_ENV: f"{index}:{sock.fileno()}"}
        process = await asyncio.create_subprocess_exec(
            sys.executable, *self._argv, env=env, pass_fds=(sock.fileno(),)
        )
        self._processes[index] = process
        log.info("worker %d started (pid %d)", index, process.pid)
        if self._stopping.is_set():  # asked to stop while it was being started
            process.send_signal(signal.SIGTERM)
        return process


def _how_it_ended(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
        return f"was killed by signal {-code}"
    return f"exited with code {code}"


def worker_environment(settings: Settings, environ: Mapping[str, str]) -> dict[str, str]:
    """The workers' environment: this one, with one webhook secret they all share.

    Without WEBHOOK_SECRET each process would make up its own, and Telegram knows one only.
    """
    env = dict(environ)
    if settings.webhook_secret is None:
        env["WEBHOOK_SECRET"] = secrets.token_urlsafe(32)
    return env


def _prepare_data_dir(settings: Settings) -> None:
    """Bring DATA_DIR to this version once, before the workers open it all at the same time."""
    files = DataFiles(settings.data_dir)
    try:
        files.root.mkdir(parents=True, exist_ok=True)
        upgrade(files)
    except OSError as exc:
        msg = f"DATA_DIR {files.root} cannot be written: {exc.strerror or exc}"
        raise DataDirError(msg) from exc


async def supervise(settings: Settings, environ: Mapping[str, str]) -> int:
    """Bind WEBHOOK_LISTEN for WORKERS workers and run them until SIGTERM or Ctrl-C."""
    await asyncio.to_thread(_prepare_data_dir, settings)
    try:
        sockets = bind_sockets(settings.webhook_host, settings.webhook_port, settings.workers)
    except OSError as exc:
        log.error("cannot listen on %s: %s", settings.webhook_listen, exc.strerror or exc)
        return 1
    supervisor = Supervisor(sockets, worker_environment(settings, environ))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, supervisor.stop)
    try:
        code = await supervisor.run()
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        for sock in sockets:
            sock.close()
    log.info("all workers stopped")
    return code

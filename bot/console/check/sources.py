"""SOURCES_FILE as `python -m bot check` sees it: one line per source.

The file itself was read with the settings (a file that cannot be used never gets here).
Offline, a source passes when every credential it names can be read, from the environment,
the `.env` file or its file; online, when its listing can be taken as well (`Sources.check`:
nothing is downloaded, moved or deleted), and the line says how many items it lists. A line
never holds a credential: a missing one is named by its variable or file, and a kind words its
own errors. Without SOURCES_FILE there is no line at all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

from bot.console.check.outcome import Outcome, failed, passed, skipped
from bot.documents.sources.config import (
    Credentials,
    SourceConfig,
    SourcesFileError,
    load_sources,
)
from bot.documents.sources.runner import Sources
from bot.process.data_files import DataFiles
from bot.settings.model import Settings

SUBJECT = "sources"

Check = Callable[[], Awaitable[Outcome]]


def source_checks(settings: Settings, *, offline: bool) -> list[Check]:
    """A check per source of SOURCES_FILE, in the file's order; none when it is unset."""
    if settings.sources_file is None:
        return []
    try:
        configs = load_sources(settings.sources_file)
    except SourcesFileError as exc:  # changed since the settings read it a moment ago
        return [partial(_said, failed(SUBJECT, f"SOURCES_FILE: {exc}"))]
    if not configs:
        return [partial(_said, skipped(SUBJECT, "SOURCES_FILE lists no source"))]
    credentials = Credentials.beside(settings)
    return [
        partial(check_source, settings, config, credentials, offline=offline) for config in configs
    ]


async def check_source(
    settings: Settings, config: SourceConfig, credentials: Credentials, *, offline: bool
) -> Outcome:
    """One source's line: its credentials, then (online) its listing."""
    subject = f"source {config.name}"
    where = f"{config.kind} → {config.target}/"
    missing = credentials.missing(config)
    if missing:
        return failed(subject, "; ".join(_unprefixed(line, config.name) for line in missing))
    if offline:
        return passed(subject, f"{where}, its credentials are set; listing not taken (--offline)")
    sources = Sources(
        [config],
        root=settings.sandbox_dir,
        data=DataFiles(settings.data_dir).sources,
        max_delete_percent=settings.source_max_delete_percent,
        credentials=credentials,
    )
    try:
        checked = await sources.check(config.name)
    finally:
        await sources.close()
    if checked.error is not None:
        return failed(subject, _unprefixed(checked.error, config.name))
    return passed(subject, f"{where}, {checked.items} item(s) listed")


def _unprefixed(line: str, name: str) -> str:
    """The line without its `source 'name': `, which the line's subject already says."""
    return line.removeprefix(f"source {name!r}: ")


async def _said(outcome: Outcome) -> Outcome:
    return outcome

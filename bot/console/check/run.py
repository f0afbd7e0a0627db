"""The order of the checks, their lines on stdout, and the exit code.

Each line is printed as soon as its check ends, so a slow server shows which check waits.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable
from functools import partial

from bot.console.check.data_folder import check_data_folder
from bot.console.check.database import check_database
from bot.console.check.documents import check_documents
from bot.console.check.embeddings import check_embeddings
from bot.console.check.model_server import (
    Listings,
    ModelTarget,
    check_model_server,
    fallback_targets,
    main_target,
)
from bot.console.check.outcome import Outcome, failed, passed, shown, skipped
from bot.console.check.rerank import check_rerank
from bot.console.check.scopes import check_scopes
from bot.console.check.sources import source_checks
from bot.console.check.tool_round import SUBJECT as TOOL_SUBJECT
from bot.console.check.tool_round import check_tool_round
from bot.settings.model import Settings

TELEGRAM_CHECK = "bot.telegram.check"
"""Has `async def get_me(settings) -> tuple[bool, str]`."""
TELEGRAM_SUBJECT = "telegram"
OFFLINE = "skipped (--offline)"


async def serve(settings: Settings, *, offline: bool = False) -> int:
    """Run every check, print a line for each; 0 when none failed, 1 otherwise.

    `offline` skips the checks that need the network (Telegram, the model servers, the
    sources' listings). The round trip with a tool follows the main model's line, and is
    tried only when that passed.
    """
    listings = Listings()
    main: list[Outcome] = []

    async def main_model() -> Outcome:
        outcome = await _model_server(settings, main_target(settings), listings, offline=offline)
        main.append(outcome)
        return outcome

    checks: list[Callable[[], Awaitable[Outcome]]] = [
        lambda: _settings(settings),
        lambda: _telegram(settings, offline=offline),
        main_model,
        lambda: _tool_round(settings, main[0], offline=offline),
    ]
    for target in fallback_targets(settings):
        checks.append(partial(_model_server, settings, target, listings, offline=offline))
    if settings.embedding_model:
        checks.append(lambda: check_embeddings(settings, offline=offline))
    if settings.rerank_url is not None:
        checks.append(lambda: check_rerank(settings, offline=offline))
    checks += [
        lambda: asyncio.to_thread(
            check_documents,
            settings.sandbox_dir,
            settings.data_dir,
            max_file_mb=settings.max_file_mb,
        ),
        lambda: asyncio.to_thread(check_data_folder, settings.data_dir),
        lambda: check_database(settings, offline=offline),
    ]
    if settings.scope_rules.configured:
        checks.append(lambda: asyncio.to_thread(check_scopes, settings))
    checks += source_checks(settings, offline=offline)
    any_failed = False
    for check in checks:
        outcome = await check()
        print(outcome.line(), flush=True)  # noqa: T201 - the terminal is the audience
        any_failed = any_failed or outcome.ok is False
    return 1 if any_failed else 0


async def _settings(settings: Settings) -> Outcome:
    """Passed only when the .env file holds nothing the settings ignore: a misspelt key
    leaves its setting at the default, which no other line would show."""
    if settings.env_file_notes:
        return failed("settings", "; ".join(settings.env_file_notes))
    return passed(
        "settings", f"model {settings.model}, documents in {shown(settings.sandbox_dir)}"
    )


async def _telegram(settings: Settings, *, offline: bool) -> Outcome:
    if settings.bot_token is None:
        return failed(
            TELEGRAM_SUBJECT,
            "BOT_TOKEN is not set (needed for the Telegram bot; `chat` works without it)",
        )
    if offline:
        return skipped(TELEGRAM_SUBJECT, OFFLINE)
    probe = importlib.import_module(TELEGRAM_CHECK)
    ok, text = await probe.get_me(settings)
    return Outcome(TELEGRAM_SUBJECT, bool(ok), str(text))


async def _tool_round(settings: Settings, main: Outcome, *, offline: bool) -> Outcome:
    """The round trip with a tool, when the model server's line passed."""
    if offline:
        return skipped(TOOL_SUBJECT, OFFLINE)
    if main.ok is not True:
        return skipped(TOOL_SUBJECT, "not tried (the model server line failed)")
    return await check_tool_round(settings)


async def _model_server(
    settings: Settings, target: ModelTarget, listings: Listings, *, offline: bool
) -> Outcome:
    if offline:
        return skipped(target.subject, OFFLINE)
    return await check_model_server(settings, target, listings=listings)

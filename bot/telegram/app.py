"""The Telegram wing's composition: the Bot, the Dispatcher and everything they are given.

`build_dispatcher` wires a Dispatcher from the shared services handed in, so tests pass a fake
Bot session and a fake model server while `python -m bot` passes the real ones. Everything a
handler or middleware needs arrives as workflow data or a constructor argument; nothing here
keeps module-level state.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from aiogram import Bot, Dispatcher
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer

from bot.access import AccessPolicy
from bot.digests.gaps.report import GapReport
from bot.digests.notices.audience import Audience
from bot.digests.notices.changes import FolderChanges
from bot.documents.manager import Documents
from bot.documents.retention import Retention
from bot.documents.sources.config import Credentials, load_sources
from bot.documents.sources.locks import SyncLocks
from bot.documents.sources.runner import Sources
from bot.process import heap
from bot.process.data_files import DataFiles
from bot.services import Services
from bot.settings.budgets import Budgets
from bot.settings.model import Settings
from bot.settings.scopes import Scopes
from bot.storage.access.codes import LIFETIME_S
from bot.storage.audit import AuditLog
from bot.telegram.access_requests import AccessRequests
from bot.telegram.api_errors import count_api_errors
from bot.telegram.button_records import record_buttons, stop_recording
from bot.telegram.change_notices import ChangeNotices
from bot.telegram.context import ChatContextMiddleware
from bot.telegram.gaps_digest import GapsDigest
from bot.telegram.handlers import make_routers
from bot.telegram.handlers.privacy import Forgetting
from bot.telegram.handlers.questions import Asker
from bot.telegram.inline_search import InlineSearch
from bot.telegram.menu import register_commands
from bot.telegram.middlewares import (
    AccessMiddleware,
    AlbumJoiner,
    BoundButtons,
    BudgetMiddleware,
    ConversationOrderMiddleware,
    InFlight,
    PairingMiddleware,
    PasteJoiner,
    RateLimitMiddleware,
)
from bot.telegram.output.pacing import EDIT_BURST, EditPacer
from bot.telegram.output.pending_status import tidy_leftovers
from bot.telegram.reply_models import keep_reply_models
from bot.telegram.source_notices import SourceNotices
from bot.telegram.source_questions import SourceQuestions
from bot.telegram.tuning import Tuning
from bot.telegram.upkeep import Upkeep
from tools import Toolbox
from tools.index.watch import folder_identity

__all__ = ["build_bot", "build_dispatcher", "warn_about_settings"]

log = logging.getLogger(__name__)

_TELEGRAM_DOWNLOAD_MB = 20


def build_bot(settings: Settings) -> Bot:
    """A Bot for Telegram's servers or TELEGRAM_API_BASE; parse mode is chosen per call.

    With TELEGRAM_API_LOCAL the server runs with `--local`: getFile answers with a path on the
    server's disk, which aiogram then reads directly (so that disk must be mounted here too).
    """
    assert settings.bot_token is not None
    token = settings.bot_token.get_secret_value().strip()
    if settings.telegram_api_base:
        api = TelegramAPIServer.from_base(
            settings.telegram_api_base, is_local=settings.telegram_api_local
        )
        return Bot(token, session=AiohttpSession(api=api))
    return Bot(token)


def warn_about_settings(settings: Settings, *, granted: bool = False) -> None:
    """Log settings that start fine but cannot work as the admin probably meant.

    `granted`: someone was given access in Telegram, so empty lists lock nobody out.
    """
    if not (settings.allow_all or settings.allowed_user_ids or settings.admin_ids or granted):
        log.warning(
            "nobody can use the bot yet: ALLOWED_USER_IDS and ADMIN_IDS are empty, ALLOW_ALL "
            "is off and nobody was given access in Telegram"
        )
    if settings.max_upload_mb > _TELEGRAM_DOWNLOAD_MB and not settings.telegram_api_local:
        log.warning(
            "MAX_UPLOAD_MB is %g, but without a local Bot API server (TELEGRAM_API_LOCAL) "
            "Telegram hands bots files of %d MB at most",
            settings.max_upload_mb,
            _TELEGRAM_DOWNLOAD_MB,
        )


def build_dispatcher(
    settings: Settings,
    services: Services,
    *,
    tuning: Tuning | None = None,
    freeze_heap: bool = True,
) -> Dispatcher:
    """A Dispatcher with every middleware and router, its dependencies as workflow data (what
    only start-up and shutdown use as one `Upkeep`, see `bot.telegram.upkeep`).

    `freeze_heap`: once started, set what start-up built aside from the cycle collector
    (`bot.process.heap`), a step for the process that serves the bot; a test process starting
    dispatchers by the hundred only pays the full collection before each freeze."""
    tuning = tuning or Tuning()
    in_flight = InFlight()
    pacer = EditPacer(tuning.edit_interval_s, burst=EDIT_BURST)
    stores = services.backend.stores(
        clock=tuning.wall_clock, rate_limit_per_hour=settings.rate_limit_per_hour
    )
    pending_status = stores.pending_status
    audit = stores.audit
    access = AccessPolicy(settings, stores.access, clock=tuning.wall_clock, audit=audit)
    documents = Documents(services.toolbox, clock=tuning.wall_clock)
    access_requests = AccessRequests(access)
    source_links = stores.source_links
    scopes = Scopes(settings.scope_rules, stores.scopes, clock=tuning.wall_clock)
    unanswered = stores.unanswered
    gap_report = GapReport(unanswered, clock=tuning.wall_clock)
    budgets = Budgets(
        settings.limits, stores.usage, clock=tuning.wall_clock, observer=services.metrics
    )
    if services.usage is not None:
        services.usage.attach(budgets.record)
    sources = mirrored_sources(settings, services, audit, clock=tuning.wall_clock)
    source_questions = SourceQuestions(access, scopes)
    sources.on_ask(source_questions.ask)
    source_notices = SourceNotices(access, scopes)
    sources.on_health(source_notices.tell)
    retention = Retention(
        settings,
        services.history,
        documents,
        clock=tuning.wall_clock,
        unanswered=unanswered,
        feedback=stores.feedback,
        experts=stores.experts,
        usage=stores.usage,
    )
    upkeep = Upkeep(
        retention=retention,
        gaps_digest=GapsDigest(
            settings.gaps_digest, unanswered, gap_report, access, scopes, clock=tuning.wall_clock
        ),
        source_questions=source_questions,
        source_notices=source_notices,
        pending_status=pending_status,
    )
    dp = Dispatcher(
        disable_fsm=True,
        settings=settings,
        agent=services.agent,
        toolbox=services.toolbox,
        tuning=tuning,
        pacer=pacer,
        asker=Asker(
            services.agent,
            settings,
            pacer,
            tuning,
            pending_status,
            source_links=source_links,
            scopes=scopes,
            unanswered=unanswered,
            feedback=stores.feedback,
            budgets=budgets,
        ),
        budgets=budgets,
        albums=stores.albums,
        in_flight=in_flight,
        access=access,
        access_requests=access_requests,
        source_links=source_links,
        files=services.files,
        transcriber=services.transcriber,
        metrics=services.metrics,
        scopes=scopes,
        audit=audit,
        documents=documents,
        confirmations=stores.confirmations,
        buttons=stores.buttons,
        feedback=stores.feedback,
        experts=stores.experts,
        forgetting=Forgetting(
            services.history,
            services.locks,
            source_links,
            access,
            stores.confirmations,
            buttons=stores.buttons,
            unanswered=unanswered,
            feedback=stores.feedback,
            experts=stores.experts,
            notices=stores.notices,
        ),
        unanswered=unanswered,
        gap_report=gap_report,
        inline_search=InlineSearch(services.toolbox, clock=tuning.clock),
        sources=sources,
        notice_store=stores.notices,
        change_notices=ChangeNotices(
            FolderChanges(
                lambda: services.toolbox.visible_files(None),
                services.toolbox.indexer.scanned.is_set,
                lambda: folder_identity(services.toolbox.sandbox.root),
            ),
            stores.notices,
            Audience(access, scopes, services.toolbox.sandbox),
            quiet_s=settings.notify_debounce_s,
            clock=tuning.wall_clock,
        ),
        upkeep=upkeep,
    )
    dp.update.outer_middleware(ChatContextMiddleware(scopes))
    dp.update.outer_middleware(PairingMiddleware(access, app_url=settings.admin_app_url))
    dp.update.outer_middleware(AccessMiddleware(access, access_requests))
    dp.callback_query.outer_middleware(BoundButtons(stores.buttons))
    dp.message.outer_middleware(AlbumJoiner(tuning.album_window_s))
    dp.message.middleware(
        RateLimitMiddleware(
            settings.rate_limit_per_hour, metrics=services.metrics, shared=stores.rate_window
        )
    )
    dp.message.middleware(PasteJoiner(tuning.paste_window_s))
    dp.message.middleware(
        ConversationOrderMiddleware(
            in_flight,
            services.locks,
            max_waiting=tuning.max_waiting_per_chat,
            metrics=services.metrics,
        )
    )
    dp.message.middleware(
        BudgetMiddleware(budgets, clock=tuning.wall_clock, metrics=services.metrics)
    )
    dp.include_routers(*make_routers())
    dp.startup.register(keep_reply_models)
    dp.startup.register(count_api_errors)
    dp.startup.register(record_buttons)
    dp.startup.register(_on_startup)
    dp.shutdown.register(_on_shutdown)
    dp.startup.register(_check_scopes)
    dp.startup.register(_start_digest)
    dp.shutdown.register(_stop_digest)
    dp.startup.register(_start_notices)
    dp.shutdown.register(_stop_notices)
    dp.startup.register(_start_sources)
    dp.shutdown.register(_stop_sources)
    if freeze_heap:
        _freeze_once_started(dp)
    dp.shutdown.register(stop_recording)  # last: what the others send until then is recorded
    return dp


async def _on_startup(
    *,
    bot: Bot,
    settings: Settings,
    toolbox: Toolbox,
    access: AccessPolicy,
    files: DataFiles,
    upkeep: Upkeep,
) -> None:
    me = await bot.me()
    await access.load()
    await upkeep.retention.start()
    await tidy_leftovers(bot, upkeep.pending_status)
    admins = access.admin_ids()
    await register_commands(
        bot,
        admins,
        files.admin_menus,
        app_url=settings.admin_app_url,
        languages={admin: access.language(admin) for admin in admins},
    )
    warn_about_settings(settings, granted=bool(access.grants()))
    if not access.has_admin():
        await _offer_pairing(access, me.username or "")
    index = toolbox.status()
    log.info(
        "bot @%s started: model %s, sandbox %s, %d documents%s",
        me.username,
        settings.model,
        toolbox.sandbox.root,
        index.documents,
        "" if index.ready else " (first index build still running)",
    )


def _freeze_once_started(dp: Dispatcher) -> None:
    """Freeze the heap after every other start-up step (registered last), thaw it at shutdown."""
    dp.startup.register(_freeze_heap)
    dp.shutdown.register(_thaw_heap)


async def _freeze_heap() -> None:
    heap.freeze()


async def _thaw_heap() -> None:
    heap.thaw()


async def _check_scopes(scopes: Scopes, toolbox: Toolbox) -> None:
    """Say at start which folders SCOPES_FILE names that the documents folder lacks (a chat
    given only those sees nothing until they are made)."""
    missing = await asyncio.to_thread(scopes.missing_folders, toolbox.sandbox)
    for folder in missing:
        log.warning("SCOPES_FILE names the folder %r, which the documents folder lacks", folder)


async def _start_digest(bot: Bot, upkeep: Upkeep) -> None:
    """Send the digest of unanswered questions when due (GAPS_DIGEST), from now on."""
    await upkeep.gaps_digest.start(bot)


async def _stop_digest(upkeep: Upkeep) -> None:
    await upkeep.gaps_digest.stop()


async def _start_notices(bot: Bot, change_notices: ChangeNotices) -> None:
    """Record the documents folder's changes, first those made while no bot ran, and send
    their digests."""
    await change_notices.start(bot)


async def _stop_notices(change_notices: ChangeNotices) -> None:
    await change_notices.stop()


def mirrored_sources(
    settings: Settings, services: Services, audit: AuditLog, *, clock: Callable[[], float]
) -> Sources:
    """The sources of SOURCES_FILE, opened (each reads its credentials now, so a missing one
    stops the start), each change indexed at once and audited as the source's."""
    database = services.database
    sources = Sources(
        load_sources(settings.sources_file),
        root=services.toolbox.sandbox.root,
        data=services.files.sources,
        max_delete_percent=settings.source_max_delete_percent,
        audit=audit,
        refresh=services.toolbox.refresh,
        locks=SyncLocks(services.files.sources, database.session if database else None),
        observer=services.metrics,
        credentials=Credentials.beside(settings),
        opener=services.source_opener,
        clock=clock,
    )
    sources.open()
    return sources


async def _start_sources(bot: Bot, sources: Sources, upkeep: Upkeep) -> None:
    """Sync each source now and on its interval, in the background; a pass that holds back a
    mass deletion asks the admins through `bot`, and they hear when a source breaks or works
    again."""
    upkeep.source_questions.bind(bot)
    upkeep.source_notices.bind(bot)
    await sources.start()


async def _stop_sources(sources: Sources) -> None:
    await sources.stop()


async def _offer_pairing(access: AccessPolicy, username: str) -> None:
    """No admin yet: log a one-time code that makes its sender the admin.

    The code is a secret for the few minutes it lives; this is the only line that shows it.
    """
    code = await access.issue_code()
    log.warning(
        "the bot has no admin yet: send /start %s to @%s in a private chat to become its admin "
        "(or open https://t.me/%s?start=%s); the code works once, for %d minutes; "
        "`python -m bot pair` prints a new one",
        code,
        username,
        username,
        code,
        LIFETIME_S // 60,
    )


async def _on_shutdown(*, in_flight: InFlight, tuning: Tuning, upkeep: Upkeep) -> None:
    """Stop the sweeps and let the questions in flight end; the stores close with the services
    (`close_services`), after this."""
    await upkeep.retention.stop()
    await in_flight.drain(tuning.shutdown_grace_s)

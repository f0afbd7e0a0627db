"""What both front doors share, without Telegram: the toolbox, the history, the model, the agent,
and the transcriber that turns voice questions into text.

`open_services` first brings DATA_DIR to this version's layout (or refuses a newer one), then
starts them in order. With DATABASE_URL the state several workers share (the history, the
webhook update claims, the conversation locks, the models' open breakers) is in PostgreSQL,
whose schema is upgraded the same way; without it, in SQLite files in DATA_DIR
(`bot.storage.backend` makes that choice, the only place that does). `close_services` closes
them, each even if another fails. The metrics they report to live in a registry made here,
one per process. The terminal chat and the Telegram wing both begin here; nothing in this
module imports aiogram, so `python -m bot chat` never pays for it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.agent.breaker import Breaker
from bot.agent.client import LazyClient, lazy_client
from bot.agent.config import AgentConfig
from bot.agent.locks import KeyedLocks
from bot.agent.loop import Agent
from bot.agent.speech.transcription import Transcriber, build_transcriber
from bot.datadir import upgrade
from bot.documents.sources.config import load_sources
from bot.monitoring import Metrics
from bot.process.data_files import DataDirError, DataFiles
from bot.settings.budgets.sink import UsageSink
from bot.settings.fallbacks import FallbackModel
from bot.settings.model import Settings
from bot.storage.backend import Backend
from bot.storage.backend.opening import open_backend
from bot.storage.claims import UpdateClaims
from bot.storage.history import History
from tools.toolbox import Toolbox
from tools.vectors.embeddings import EmbeddingsConfig
from tools.vectors.rerank import RerankConfig, configured_reranker

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from bot.documents.sources.runner import Opener
    from bot.storage.conversation_lock import AdvisoryConversationLocks
    from bot.storage.postgres import PostgresDatabase


@dataclass(frozen=True, slots=True)
class Services:
    """What the bot owns besides Telegram.

    `locks` serialises each conversation: the agent takes it, and so does the Telegram wing
    around a whole update (the same table, so a conversation is ordered in one place).
    `transcriber` is None when voice questions are off (TRANSCRIBE_MODEL is empty).
    `metrics` hears the agent and the front door; `/metrics` renders it.
    `backend` is what the state stands on (`bot.storage.backend`), chosen once: the Telegram
    wing builds its stores on it. `claims` decides which worker handles a webhook update;
    `database` is the shared PostgreSQL database (None on SQLite).
    `client` is the model's SDK client, built at the first model call (`bot.agent.client`).
    `closing` owns closing all of it, and the stores a front door opens on top (last opened,
    first closed): `close_services` unwinds it.
    """

    toolbox: Toolbox
    history: History
    client: LazyClient
    agent: Agent
    locks: KeyedLocks
    files: DataFiles
    backend: Backend
    transcriber: Transcriber | None = None
    metrics: Metrics = field(default_factory=Metrics)
    closing: AsyncExitStack = field(default_factory=AsyncExitStack)
    usage: UsageSink | None = None
    """Where the embeddings' tokens wait for the usage store (the front door attaches it)."""
    source_opener: Opener | None = None
    """How SOURCES_FILE's sources are opened; None for their kinds (tests pass an in-memory
    remote)."""

    @property
    def claims(self) -> UpdateClaims:
        """Which worker handles a webhook update, on the backend."""
        return self.backend.claims

    @property
    def database(self) -> PostgresDatabase | None:
        """The shared PostgreSQL database; None on SQLite."""
        return self.backend.database


async def open_services(
    settings: Settings,
    *,
    client: AsyncOpenAI | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Services:
    """Start the toolbox, open the history, build the agent; `client` replaces the real one
    (of the main model; the fallbacks' are built from the settings), `clock` times the models'
    cool-downs.

    Files are touched off the event loop: the prompt file is read and DATA_DIR made in a
    thread, the stores work on their own threads.
    """
    config = await asyncio.to_thread(AgentConfig.from_settings, settings)
    files = DataFiles(settings.data_dir)
    try:
        await asyncio.to_thread(files.root.mkdir, parents=True, exist_ok=True)
    except OSError as exc:
        msg = f"DATA_DIR {files.root} cannot be created: {exc.strerror or exc}"
        raise DataDirError(msg) from exc
    try:
        await asyncio.to_thread(upgrade, files)
    except OSError as exc:
        msg = f"DATA_DIR {files.root} cannot be written: {exc.strerror or exc}"
        raise DataDirError(msg) from exc
    stack = AsyncExitStack()
    usage = UsageSink(asyncio.get_running_loop())
    try:
        url = settings.database_url
        backend = await open_backend(None if url is None else url.get_secret_value(), files, stack)
        # Every process on DATA_DIR takes part in the index's writer lock (the first one
        # writes; another worker or the terminal chat reads), so the admin's tools can tell
        # one is there. Opened after the backend, it is closed before it: its vector builder
        # may be writing embeddings to the shared database.
        toolbox = Toolbox(
            settings,
            private_files=files.private_files(),
            embeddings=embeddings_config(settings, on_tokens=usage.embedded),
            embedding_cache=backend.embedding_cache(),
            rerank=rerank_config(settings, clock=clock),
        )
        stack.push_async_callback(usage.close)
        await toolbox.start()
        stack.push_async_callback(toolbox.close)
        history = backend.history
        database = backend.database
        model = LazyClient.of(client) if client is not None else lazy_client(settings)
        stack.push_async_callback(model.close)
        locks = KeyedLocks(across=_locks_across(database) if database else None)
        fallbacks = {model.name: lazy_client(settings, model) for model in settings.fallbacks}
        for fallback in fallbacks.values():
            stack.push_async_callback(fallback.close)
        seeing = vision_client(settings)
        if seeing is not None:
            stack.push_async_callback(seeing.close)
        metrics = Metrics(
            tools=(spec["function"]["name"] for spec in toolbox.specs),
            models=_models_named(settings) | set(fallbacks),
            sources=(source.name for source in load_sources(settings.sources_file)),
        )
        metrics.watch(toolbox.status, locks.load, toolbox.vector_status)
        if toolbox.reranker is not None:
            metrics.watch_reranks(toolbox.reranker.counts)
        agent = Agent(
            config,
            model,
            toolbox,
            history,
            locks=locks,
            observer=metrics,
            fallbacks=fallbacks,
            vision_client=seeing,
            clock=clock,
        )
        shared = backend.breakers()
        if shared is not None:
            await agent.share_breakers(shared)
        metrics.watch_models(agent.model_states)
        transcriber = build_transcriber(settings, model)
        if transcriber is not None:
            stack.push_async_callback(transcriber.close)
    except BaseException:
        await stack.aclose()
        raise
    return Services(
        toolbox,
        history,
        model,
        agent,
        locks,
        files,
        backend,
        transcriber,
        metrics,
        closing=stack,
        usage=usage,
    )


def embeddings_config(
    settings: Settings, *, on_tokens: Callable[[str, int], None] | None = None
) -> EmbeddingsConfig | None:
    """Search by meaning as the settings ask for it; None when EMBEDDING_MODEL is empty.
    `on_tokens` hears the tokens each embedding took, from any thread."""
    if not settings.embedding_model:
        return None
    key = settings.embedding_key
    return EmbeddingsConfig(
        model=settings.embedding_model,
        base_url=settings.embedding_url,
        api_key=key.get_secret_value() if key is not None else None,
        on_tokens=on_tokens,
    )


def rerank_config(
    settings: Settings, *, clock: Callable[[], float] = time.monotonic
) -> RerankConfig | None:
    """Reranking as the settings ask for it; None when RERANK_URL is empty. It sits behind a
    breaker like the models' own: after a failure searches skip it for FALLBACK_COOLDOWN_S."""
    return configured_reranker(
        settings, gate=Breaker("reranker", settings.fallback_cooldown_s, clock)
    )


def vision_client(settings: Settings) -> LazyClient | None:
    """VISION_MODEL's own client when VISION_BASE_URL or VISION_API_KEY sends it elsewhere than
    the main model's server; None when it shares the main client."""
    if not settings.vision_model or (
        settings.vision_base_url is None and settings.vision_api_key is None
    ):
        return None
    model = FallbackModel(
        settings.vision_model,
        base_url=settings.vision_base_url,
        api_key=settings.vision_api_key or settings.openai_api_key,
    )
    return lazy_client(settings, model)


def _models_named(settings: Settings) -> set[str]:
    """The models the settings name, the only ones the metrics label by name."""
    named = {settings.model, settings.transcribe_model, settings.embedding_model}
    return {name for name in (*named, *settings.limits.prices) if name}


def _locks_across(database: PostgresDatabase) -> AdvisoryConversationLocks:
    """Conversation locks shared by every worker, in the PostgreSQL database."""
    from bot.storage.conversation_lock import AdvisoryConversationLocks  # noqa: PLC0415

    return AdvisoryConversationLocks(database)


async def close_services(services: Services) -> None:
    """Close everything opened for `services`, last opened first, each even if another fails:
    what `open_services` opened and the stores the front doors added to `services.closing`."""
    await services.closing.aclose()

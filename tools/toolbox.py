"""The toolbox the agent uses: three read-only tools over the sandbox, one async entry point.

Every problem the model caused (bad JSON, unknown tool, invalid arguments, a refused or missing
path, an unreadable file) comes back as a failed `ToolResult` (`{"error", "hint"}` for the
model), never as an exception. Blocking work (SQLite, extraction) runs in threads, so the event
loop never stalls.

Each call may carry a scope (`tools.jail.scope`): the folders this question may see. It narrows the
jail, the search query, listings and close-name suggestions alike, so nothing outside is named,
counted or quoted, and an outside path reads as a missing one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import json
import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.config import ToolSettings
from tools.cutting import cut_entries, cut_longest_field, cut_page, cut_results
from tools.errors import ExtractionError, PathNotFoundError, SandboxError, ToolError
from tools.extract.cache import DocumentCache
from tools.extract.extractor import Extractor, Limits
from tools.extract.formats.kinds import has_pages
from tools.extract.formats.ocrnote import ocr_pages
from tools.extract.page_pictures import CACHE_BYTES, PICTURE_SECONDS, PagePictures
from tools.extract.places import parse_place
from tools.index.allocator import tune_allocator
from tools.index.indexer import FULL_RESCAN_EVERY, FileReport, Indexer, IndexStatus, ReindexReport
from tools.index.rebuild_request import REBUILD_REQUEST, RebuildRequest
from tools.index.states import DocumentState, document_states, stored_errors
from tools.index.store import INDEX_FILE, INDEX_TERMS, stored_text
from tools.index.terms import Stemmer
from tools.index.watch import WatchMode
from tools.index.writer_lock import WriterLock
from tools.jail.documents_folder import documents_folder_problem
from tools.jail.sandbox import Sandbox
from tools.jail.scope import Scope
from tools.listing import list_folder
from tools.paths import did_you_mean, suggest_paths
from tools.reading import Reader
from tools.results import PagePicture, ToolResult
from tools.tool import ListArgs, PictureMode, PictureReadArgs, ReadArgs, SearchArgs, Tool
from tools.vectors.embeddings import EmbeddingsConfig, EmbeddingsError, QueryEmbedder
from tools.vectors.rerank import RerankConfig, Reranker
from tools.vectors.state import CACHE_FILE, STORE_FOLDER, VectorStatus

if TYPE_CHECKING:  # the index engine loads with the first search, not at start
    from tools.search import Searcher
    from tools.vectors.builder import VectorBuilder
    from tools.vectors.cache import EmbeddingCache, SqliteEmbeddingCache
    from tools.vectors.centre import FolderCentre
    from tools.vectors.store import VectorStore

log = logging.getLogger(__name__)
INDEX_LOCK = "search-index.lock"
NOT_CONFIGURED = "search by meaning is not configured (EMBEDDING_MODEL is empty)"
_DB_SUFFIXES = ("", "-wal", "-shm", "-journal", ".in-use")


class Toolbox:
    """search_files, read_file and list_files over one sandbox, with a live search index.

    `validates_arguments` tells a caller to pass the model's raw arguments through: the
    toolbox checks them itself and explains every problem to the model. A lock file beside the
    index picks the one process that writes it (`tools.index.writer_lock`): the first to start
    holds it, every other one on the same DATA_DIR (another worker, the terminal chat) reads
    what it writes. `writes_index=False` never writes, even when nobody holds the lock: the admin's
    command line, which must not touch a running bot's index.
    """

    validates_arguments = True

    def __init__(
        self,
        settings: ToolSettings,
        *,
        watch: WatchMode = "notify",
        watch_interval: float = 1.0,
        full_rescan_interval: float = FULL_RESCAN_EVERY,
        extract_timeout: float = 30.0,
        cache_bytes: int = 64 * 1024 * 1024,
        picture_cache_bytes: int = CACHE_BYTES,
        extraction_worker: Sequence[str] | None = None,
        private_files: Sequence[Path] = (),
        writes_index: bool = True,
        embeddings: EmbeddingsConfig | None = None,
        embedding_cache: EmbeddingCache | None = None,
        vector_interval: float = 2.0,
        rerank: RerankConfig | None = None,
    ) -> None:
        self.settings = settings
        data_dir = Path(settings.data_dir).absolute()
        index = data_dir / INDEX_FILE
        self.sandbox = Sandbox(
            Path(settings.sandbox_dir), reserved=_reserved(data_dir, private_files)
        )
        limits = Limits(
            max_file_bytes=int(settings.max_file_mb * 1024 * 1024), timeout=extract_timeout
        )
        self._extractor = Extractor(limits, extraction_worker, self.sandbox.root)
        self._cache = DocumentCache(cache_bytes)
        self._pictures = PagePictures(
            limits,
            extraction_worker,
            self.sandbox.root,
            cache_bytes=picture_cache_bytes,
            seconds=min(extract_timeout, PICTURE_SECONDS),
        )
        self._stemmer = Stemmer()
        self.indexer = Indexer(
            self.sandbox,
            index,
            extractor=self._extractor,
            cache=self._cache,
            stemmer=self._stemmer,
            interval=watch_interval,
            watch=watch,
            full_rescan_interval=full_rescan_interval,
            writer_lock=WriterLock(index.with_name(INDEX_LOCK)),
            rebuild_request=RebuildRequest(index.with_name(REBUILD_REQUEST)),
            read_only=not writes_index,
        )
        self._searcher: Searcher | None = None
        self._vectors: VectorStore | None = None
        self._centre: FolderCentre | None = None
        self._vector_builder: VectorBuilder | None = None
        self._query_embedder: QueryEmbedder | None = None
        self._own_cache: SqliteEmbeddingCache | None = None
        if embeddings is not None:
            self._open_vectors(data_dir, embeddings, embedding_cache, vector_interval)
        self.reranker = Reranker(rerank) if rerank is not None else None
        """Reorders a search's best candidates (None: RERANK_URL is empty)."""
        self._reader = Reader(
            self.sandbox, self._extractor, self._cache, self._stemmer, self._stored
        )
        self.tools: dict[str, Tool] = {
            t.name: t for t in self._three_tools(by_meaning=embeddings is not None)
        }
        self._specs = [t.spec() for t in self.tools.values()]
        self._picture_specs = [t.spec(pictures=True) for t in self.tools.values()]
        self._allowed: tuple[object, Scope, frozenset[str]] | None = None

    def _open_vectors(
        self,
        data_dir: Path,
        embeddings: EmbeddingsConfig,
        cache: EmbeddingCache | None,
        interval: float,
    ) -> None:
        """The vector side, with its own SQLite cache in DATA_DIR unless given a shared one.
        It (numpy, the SDK, the index) loads only when it is configured."""
        from tools.vectors.builder import VectorBuilder  # noqa: PLC0415
        from tools.vectors.cache import SqliteEmbeddingCache  # noqa: PLC0415
        from tools.vectors.centre import FolderCentre  # noqa: PLC0415
        from tools.vectors.store import VectorStore  # noqa: PLC0415

        self._vectors = VectorStore(data_dir / STORE_FOLDER)
        if cache is None:
            cache = self._own_cache = SqliteEmbeddingCache(data_dir / CACHE_FILE)
        self._query_embedder = QueryEmbedder(embeddings)
        self._vector_builder = VectorBuilder(
            self.indexer, self._vectors, cache, embeddings, interval=interval
        )
        self._centre = FolderCentre(self.indexer, cache, embeddings.model, self._vectors.passages)

    def _three_tools(self, *, by_meaning: bool) -> tuple[Tool, ...]:
        """search_files, read_file and list_files, as the model is told of them."""
        return (
            Tool(
                "search_files",
                "Find documents by words"
                + (", meaning" if by_meaning else "")
                + " or a name glob; use first for any question on the documents.",
                SearchArgs,
                self._search,
                example='{"query": "отпуск 2024"}',
                subject="query",
            ),
            Tool(
                "read_file",
                "Read a document page by page; use on a found path before answering.",
                ReadArgs,
                self._read,
                example='{"path": "docs/report.pdf", "offset": 1}',
                subject="path",
                picture_args=PictureReadArgs,
            ),
            Tool(
                "list_files",
                "List a folder; use when search finds nothing or to see what exists.",
                ListArgs,
                self._list,
                example='{"path": "", "depth": 1}',
                subject="path",
                subject_default="/",
            ),
        )

    @property
    def specs(self) -> list[dict[str, Any]]:
        """OpenAI tool specs for the three tools (a fresh copy each time)."""
        return json.loads(json.dumps(self._specs))  # type: ignore[no-any-return]

    @property
    def picture_specs(self) -> list[dict[str, Any]]:
        """The specs for a model that takes pictures: read_file may also show its page as one
        (a fresh copy each time)."""
        return json.loads(json.dumps(self._picture_specs))  # type: ignore[no-any-return]

    async def start(self) -> None:
        """Open or create the index and start the background build and the watcher."""
        problem = documents_folder_problem(Path(self.settings.sandbox_dir))
        if problem is not None:
            log.warning("%s (the bot keeps looking for it; no documents until then)", problem)
        tune_allocator()  # before the build's threads allocate (see tools.index.allocator)
        await self.indexer.start()
        if self._vector_builder is not None:
            self._vector_builder.start()

    async def close(self) -> None:
        """Stop the watcher, the extraction worker and the index (in that order, so a
        document stuck in the parser does not hold up shutdown)."""
        self.indexer.stop()
        if self._vector_builder is not None:
            await asyncio.to_thread(self._vector_builder.stop)
        if self._query_embedder is not None:
            await self._query_embedder.close()
        if self.reranker is not None:
            await self.reranker.close()
        if self._vectors is not None:
            self._vectors.close()
        if self._own_cache is not None:
            self._own_cache.close()
        await asyncio.to_thread(self._extractor.close)
        await asyncio.to_thread(self._pictures.close)
        await self.indexer.close()

    async def reindex(self) -> ReindexReport:
        """Rebuild the whole index from the documents.

        Raises:
            IndexInUseError: another process (a running bot) writes the index.
        """
        return await self.indexer.reindex()

    async def ask_rebuild(self, within_s: float) -> bool:
        """Ask the process that writes the index (a running bot, any of its workers on this
        DATA_DIR) to rebuild it from the documents, as `reindex` would; whether it was done
        within `within_s` seconds (if not, it still will be)."""
        return await self.indexer.ask_rebuild(within_s)

    def writer_elsewhere(self) -> bool:
        """Whether another process (a running bot) writes the index now."""
        return self.indexer.writer_elsewhere()

    async def refresh(self, rel_path: str) -> FileReport:
        """Index one file now, e.g. right after an upload."""
        return await self.indexer.refresh(rel_path)

    def _stored(self, rel: str, size: int, mtime_ns: int) -> str | None:
        """The index's text of this version of a file (blocking), None when it has none."""
        try:
            with self.indexer.readers.connection() as conn:
                return stored_text(conn, rel, size, mtime_ns)
        except sqlite3.Error:
            return None  # a damaged index: the reader is told to come back instead

    async def recognised_pages(self, rel_path: str) -> int | None:
        """Pages of a document recognised by OCR (from the cache right after indexing); None
        when it was not a scan or cannot be read."""

        def pages() -> int | None:
            try:
                _, doc = self._reader.document(self.sandbox.resolve(rel_path))
            except ToolError:
                return None
            return ocr_pages(doc.lines[0]) if doc.lines else None

        return await asyncio.to_thread(pages)

    async def page_picture(self, path: str, page: int, *, scope: Scope | None = None) -> bytes:
        """Page `page` (from 1) of the PDF or scan at `path`, as JPEG bytes a chat shows as a
        photo; `path` goes through the jail narrowed to `scope`, as read_file's does.

        Raises:
            SandboxError: the path is refused, outside `scope` or missing (`PathNotFoundError`).
            NotPagedError: the file is neither a PDF nor a scan.
            NoSuchPageError: it has fewer pages.
            ExtractionError: it cannot be drawn: too large, broken, or too slow.
        """
        jail = self.sandbox.within(scope)

        def draw() -> bytes:
            return self._pictures.picture(jail.resolve(path), page)

        return await asyncio.to_thread(draw)

    @property
    def pages_drawn(self) -> int:
        """Pages drawn as pictures since start (one served from memory is not counted)."""
        return self._pictures.renders

    @property
    def extraction_count(self) -> int:
        """Documents parsed since start (the extraction cache keeps this low), by this process
        or by the children that prepare a large pass."""
        return self._extractor.count + self.indexer.prepared_elsewhere

    def status(self) -> IndexStatus:
        return self.indexer.status()

    def vector_status(self) -> VectorStatus:
        """How far the vector index is (`configured` False without embeddings)."""
        if self._vector_builder is None:
            return VectorStatus(configured=False)
        return self._vector_builder.status()

    async def build_vectors(
        self, on_step: Callable[[VectorStatus], object] | None = None
    ) -> VectorStatus:
        """Bring the vectors in line with the keyword index now, in this process (the command
        line's `reindex`, which holds the index): only text the embeddings cache lacks is sent,
        so a build stopped half way and begun again continues. Cancelled, it stops after the
        current call and keeps what it stored. `on_step` hears the progress.

        Raises:
            EmbeddingsError: embeddings are not configured, or the server kept failing.
        """
        builder = self._vector_builder
        if builder is None:
            raise EmbeddingsError(NOT_CONFIGURED)
        look = asyncio.ensure_future(asyncio.to_thread(builder.follow, on_step))
        try:
            await asyncio.shield(look)
        except asyncio.CancelledError:
            builder.halt()
            with contextlib.suppress(Exception):  # stopping: its failure says nothing now
                await look
            raise
        return builder.status()

    async def vector_coverage(self) -> tuple[int, int] | None:
        """Documents whose vectors are up to date and documents indexed, as the files in
        DATA_DIR say (whoever built them); None without embeddings."""
        builder = self._vector_builder
        if builder is None:
            return None
        return await asyncio.to_thread(builder.coverage)

    async def wait_vectors(self) -> None:
        """Return once the vector index has caught up with the keyword index (callers bound
        it with a timeout); at once without embeddings."""
        builder = self._vector_builder
        if builder is None:
            return
        await self.wait_synced()
        await asyncio.to_thread(builder.caught_up)

    async def wait_ready(self) -> None:
        """Return once the first index build is done (callers bound it with a timeout)."""
        await self.indexer.ready.wait()

    async def wait_synced(self) -> None:
        """Return once the index has caught up with files changed before this call."""
        await self.indexer.wait_synced()

    def subject(self, name: str, arguments: Mapping[str, Any]) -> str | None:
        """What a progress line shows for this call (the query, the path); None for a tool
        that does not exist."""
        tool = self.tools.get(name)
        return tool.subject_of(arguments) if tool is not None else None

    async def execute(
        self,
        name: str,
        arguments: str | Mapping[str, Any],
        *,
        scope: Scope | None = None,
        pictures: PictureMode = "off",
    ) -> ToolResult:
        """Run one tool call within `scope` (None: the whole folder); a problem comes back as
        a failed result, never raised. `pictures`: whether a read may show its page as a
        picture (`tools.tool.PictureMode`)."""
        tool = self.tools.get(name)
        if tool is None:
            return ToolResult.failed(
                f"there is no tool named '{str(name)[:60]}'",
                f"Use {', '.join(self.tools)}.",
            )
        try:
            parsed = tool.parse(arguments)
            if isinstance(parsed, PictureReadArgs) and parsed.picture:
                return await self._read_shown(parsed, scope, pictures)
            return await tool.run(parsed, scope)
        except ToolError as exc:
            return ToolResult.failed(exc.message, exc.hint)
        except Exception:  # the model must get an answer; the traceback goes to the log
            log.exception("tool %s failed", name)
            return ToolResult.failed(
                f"{name} failed unexpectedly", "Try again, or try another file or query."
            )

    @property
    def searcher(self) -> Searcher:
        """The searcher, made at the first search: the index engine loads then, not at start."""
        if self._searcher is None:
            from tools.search import Searcher  # noqa: PLC0415 - the engine loads at first search

            self._searcher = Searcher(self.indexer, self._stemmer, self._vectors, self._centre)
        return self._searcher

    def allowed_files(self, scope: Scope) -> frozenset[str]:
        """The indexed folder's visible files inside `scope` (blocking; kept until the folder
        changes, as the indexer replaces its snapshot on every change)."""
        visible = self.indexer.state.visible
        cached = self._allowed
        if cached is not None and cached[0] is visible and cached[1] == scope:
            return cached[2]
        jail = self.sandbox.within(scope)
        allowed = frozenset(p for p in visible if jail.admits_file(p))
        self._allowed = (visible, scope, allowed)
        return allowed

    def document_states(self, scope: Scope | None) -> list[DocumentState]:
        """Each visible document within `scope` and how far the index has it (blocking)."""
        visible = self.visible_files(scope)
        try:
            with self.indexer.readers.connection() as conn:
                stored = stored_errors(conn)
        except sqlite3.Error:
            stored = {}  # a damaged index: every file shows as waiting for the rebuild
        return document_states(visible, stored)

    def visible_files(self, scope: Scope | None) -> dict[str, tuple[int, int]]:
        """The indexer's snapshot of visible files (size, mtime), narrowed to `scope`."""
        visible = self.indexer.state.visible
        if scope is None:
            return visible
        allowed = self.allowed_files(scope)
        return {p: sig for p, sig in visible.items() if p in allowed}

    async def _search(self, args: SearchArgs, scope: Scope | None) -> ToolResult:
        from tools.search import Within  # noqa: PLC0415 - the engine loads at first search

        reranker = self.reranker
        wanted = args.limit if reranker is None else max(args.limit, reranker.config.candidates)

        def run() -> dict[str, Any]:
            within = None if scope is None else Within(scope.folders, self.allowed_files(scope))
            return self.searcher.search(args.query, wanted, within=within)

        if self._query_embedder is None:
            found = await asyncio.to_thread(run)
        else:
            found = await self._search_both(args.query, wanted, scope, self._query_embedder)
        if reranker is not None:
            found = await _reranked(reranker, args.query, found, args.limit)
        return ToolResult.of(found, cut_results, hits=len(found.get("results") or ()))

    async def _search_both(
        self, query: str, limit: int, scope: Scope | None, embedder: QueryEmbedder
    ) -> dict[str, Any]:
        """Words and meaning at once: the query's embedding is asked for while the keyword
        search runs, and the vector search starts the moment it is in, beside the keyword
        search; without it in time the keyword results stand, and say why."""
        from tools.search import Within  # noqa: PLC0415 - the engine loads at first search

        within = None if scope is None else Within(scope.folders, self.allowed_files(scope))
        words = asyncio.ensure_future(
            asyncio.to_thread(self.searcher.search_words, query, limit, within=within, weigh=True)
        )
        try:
            vector = await embedder.embed(query)
        except EmbeddingsError as exc:
            found, _ = await words
            return {**found, "meaning": f"unavailable: {exc}"}
        except BaseException:
            words.cancel()
            raise
        near = asyncio.ensure_future(
            asyncio.to_thread(self.searcher.near_files, vector, query, limit, within=within)
        )
        try:
            (found, evidence), meaning = await asyncio.gather(words, near)
        except BaseException:
            words.cancel()
            near.cancel()
            raise
        fused = self.searcher.fused(found, evidence, meaning, limit)
        status = self.vector_status()
        if status.passages_done < status.passages_total:
            fused["meaning"] = (
                f"partial: {status.passages_done} of about {status.passages_total} "
                "passages searchable by meaning so far"
            )
        return fused

    async def search_by_meaning(
        self, query: str, limit: int, *, scope: Scope | None = None
    ) -> list[str]:
        """The files nearest in meaning to `query`, the vector side alone (no words, no
        fusion; the query centred on the folder as in a fused search), nearest first: for
        comparing the two sides, not for the model.

        Raises:
            EmbeddingsError: embeddings are not configured, or no vector came in time.
        """
        from tools.search import Within  # noqa: PLC0415 - the engine loads at first search

        if self._query_embedder is None or self.searcher.vectors is None:
            raise EmbeddingsError(NOT_CONFIGURED)
        vector = await self._query_embedder.embed(query)
        within = None if scope is None else Within(scope.folders, self.allowed_files(scope))
        allowed = None if within is None else within.allowed
        hits, _ = await asyncio.to_thread(self.searcher.nearest, vector, limit, allowed=allowed)
        return [hit.path for hit in hits]

    async def _read(self, args: ReadArgs, scope: Scope | None) -> ToolResult:
        page = await self._read_page(args, scope)
        return ToolResult.of(page, cut_page, source=str(page["path"]))

    async def _read_shown(
        self, args: ReadArgs, scope: Scope | None, mode: PictureMode
    ) -> ToolResult:
        """A read asked to show its page as a picture: the text as always, and the picture of
        the page its first line lies on when `mode` allows, drawn through the same jail. A
        scan or PDF with no readable text (a chart, a photographed table) shows its first page
        instead of failing."""
        try:
            page = await self._read_page(args, scope)
        except SandboxError:
            raise
        except ExtractionError as exc:
            if mode != "on" or not has_pages(args.path):
                raise
            return await self._shown_instead(args.path, scope, exc)
        picture: PagePicture | None = None
        if mode == "on":
            try:
                picture = await self._draw(str(page["path"]), _first_page(page), scope)
                note = _SHOWN.format(page=picture.page)
            except ToolError as exc:
                note = f"not shown: {exc.message}"
        elif mode == "spent":
            note = "not shown: this question has shown as many pages as it may; use the text"
        else:
            note = "not shown: pictures are not available to this model; use the text"
        shown = {k: v for k, v in page.items() if k != "document"}
        shown.update(picture=note, document=page["document"])
        return ToolResult.of(shown, cut_page, source=str(page["path"]), picture=picture)

    async def _shown_instead(
        self, path: str, scope: Scope | None, problem: ExtractionError
    ) -> ToolResult:
        """The first page as a picture, for a document whose text cannot be had; the
        original problem when it cannot be drawn either."""
        try:
            picture = await self._draw(path, 1, scope)
        except ToolError:
            raise problem from None
        payload = {
            "path": picture.path,
            "text": f"{problem.message}; its first page is shown as a picture instead",
            "picture": _SHOWN.format(page=1),
        }
        return ToolResult.of(payload, cut_longest_field, source=picture.path, picture=picture)

    async def _draw(self, path: str, number: int, scope: Scope | None) -> PagePicture:
        """Page `number` of the document at `path`, drawn through the jail narrowed to
        `scope`, with its canonical path and size."""
        jail = self.sandbox.within(scope)

        def draw() -> PagePicture:
            real = jail.resolve(path)
            data = self._pictures.picture(real, number)
            width, height = _jpeg_size(data)
            return PagePicture(self.sandbox.relative(real), number, data, width, height)

        return await asyncio.to_thread(draw)

    async def _read_page(self, args: ReadArgs, scope: Scope | None) -> dict[str, Any]:
        try:
            page = await asyncio.to_thread(
                functools.partial(
                    self._reader.read,
                    args.path,
                    args.offset,
                    args.limit,
                    self.settings.read_page_chars,
                    jail=self.sandbox.within(scope),
                )
            )
        except PathNotFoundError as exc:
            await self._offer_close(exc, args.path, lambda: self._file_paths(scope))
            raise
        return page

    def _file_paths(self, scope: Scope | None) -> list[str]:
        return list(self.visible_files(scope)) or [
            e.rel for e in self.sandbox.within(scope).walk() if not e.is_dir
        ]

    def _folder_paths(self, scope: Scope | None) -> list[str]:
        files = self.visible_files(scope)
        return sorted({p.rsplit("/", 1)[0] for p in files if "/" in p})

    async def _offer_close(
        self, exc: PathNotFoundError, missing: str, candidates: Callable[[], list[str]]
    ) -> None:
        """Raise `exc` again with close existing paths as its hint, when there are any.

        Gathering candidates and fuzzy matching run in a thread: a big folder makes them slow.
        """

        def close() -> list[str]:
            return suggest_paths(missing, candidates(), self._stemmer)

        found = await asyncio.to_thread(close)
        if found:
            raise PathNotFoundError(exc.rel, did_you_mean(found)) from None

    async def _list(self, args: ListArgs, scope: Scope | None) -> ToolResult:
        def run() -> dict[str, Any]:
            snapshot = self.visible_files(scope) if self.indexer.passes else None
            jail = self.sandbox.within(scope)
            return list_folder(jail, args.path, args.depth, snapshot)

        try:
            listing = await asyncio.to_thread(run)
        except PathNotFoundError as exc:
            await self._offer_close(exc, args.path, lambda: self._folder_paths(scope))
            raise
        return ToolResult.of(listing, cut_entries)


async def _reranked(
    reranker: Reranker, query: str, found: dict[str, Any], limit: int
) -> dict[str, Any]:
    """`found` (of up to `candidates` results) in the reranker's order, cut to `limit`; says
    `reranked` when the reranker ordered them, else keeps the fused order silently."""
    results = found.get("results") or []
    ordered, reranked = await reranker.reorder(query, results, limit)
    out = {**found, "results": ordered}
    if "truncated" in found:
        out["truncated"] = int(found.get("total") or 0) > len(ordered)
    if reranked:
        out["reranked"] = True
    return out


def build_toolbox(settings: ToolSettings) -> Toolbox:
    """A toolbox for these settings, not started yet: the caller awaits `start()`."""
    return Toolbox(settings)


_SHOWN = "page {page} follows as a picture, after the tool results"


def _first_page(page: Mapping[str, Any]) -> int:
    """The page a read's first line lies on; 1 for a document without page markers."""
    place = parse_place(str(page.get("place") or ""))
    return place.page if place is not None and place.page else 1


def _jpeg_size(data: bytes) -> tuple[int, int]:
    """A drawn page's width and height, from its header."""
    from PIL import Image  # noqa: PLC0415 - only when a page is shown

    with Image.open(io.BytesIO(data)) as image:
        return image.size


def _reserved(data_dir: Path, private_files: Sequence[Path]) -> tuple[Path, ...]:
    """What no path from the model may reach: the data folder, and named one by one as well
    (should the data folder ever be the documents folder, which the settings refuse) the
    index, its terms, the vectors and the caller's `private_files`, with SQLite's side files."""
    return (
        data_dir,
        data_dir / INDEX_TERMS,
        data_dir / STORE_FOLDER,
        *(
            database.with_name(database.name + suffix)
            for database in (data_dir / INDEX_FILE, data_dir / CACHE_FILE, *private_files)
            for suffix in _DB_SUFFIXES
        ),
    )

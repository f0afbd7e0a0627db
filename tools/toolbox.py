"""The toolbox the agent uses: three read-only tools over the sandbox, one async entry point.

Every problem the model caused (bad JSON, unknown tool, invalid arguments, a refused or missing
path, an unreadable file) comes back as an `{"error", "hint"}` result, never as an exception.
Blocking work (SQLite, extraction) runs in threads, so the event loop never stalls.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from tools.cache import DocumentCache
from tools.config import ToolSettings
from tools.errors import PathNotFoundError, ToolError
from tools.extract import Extractor, Limits
from tools.indexer import FileReport, Indexer, IndexStatus, ReindexReport
from tools.listing import list_folder
from tools.paths import did_you_mean, suggest_paths
from tools.reading import Reader
from tools.results import error_result, to_json
from tools.sandbox import Sandbox
from tools.schemas import ListArgs, ReadArgs, SearchArgs, tool_spec
from tools.search import Searcher
from tools.terms import Stemmer

log = logging.getLogger(__name__)
INDEX_FILE = "search-index.sqlite3"
_DB_SUFFIXES = ("", "-wal", "-shm", "-journal", ".in-use")


@dataclass(frozen=True)
class _Tool:
    name: str
    description: str
    args: type[BaseModel]
    run: Callable[[Any], Awaitable[dict[str, Any]]]


class Toolbox:
    """search_files, read_file and list_files over one sandbox, with a live search index.

    `validates_arguments` tells a caller to pass the model's raw arguments through: the
    toolbox checks them itself and explains every problem to the model.
    """

    validates_arguments = True

    def __init__(
        self,
        settings: ToolSettings,
        *,
        watch_interval: float = 1.0,
        extract_timeout: float = 30.0,
        cache_bytes: int = 64 * 1024 * 1024,
        extraction_worker: Sequence[str] | None = None,
        bot_databases: Sequence[Path] = (),
    ) -> None:
        self.settings = settings
        data_dir = Path(settings.data_dir).absolute()
        index = data_dir / INDEX_FILE
        # Named one by one as well: should the data folder ever be the documents folder (the
        # settings refuse it), its files (the index and the caller's `bot_databases`, with
        # their SQLite side files) still stay out of reach.
        own = (
            data_dir,
            *(
                database.with_name(database.name + suffix)
                for database in (index, *bot_databases)
                for suffix in _DB_SUFFIXES
            ),
        )
        self.sandbox = Sandbox(Path(settings.sandbox_dir), reserved=own)
        limits = Limits(
            max_file_bytes=int(settings.max_file_mb * 1024 * 1024), timeout=extract_timeout
        )
        self._extractor = Extractor(limits, extraction_worker, self.sandbox.root)
        self._cache = DocumentCache(cache_bytes)
        self._stemmer = Stemmer()
        self.indexer = Indexer(
            self.sandbox,
            index,
            extractor=self._extractor,
            cache=self._cache,
            stemmer=self._stemmer,
            interval=watch_interval,
        )
        self._searcher = Searcher(self.indexer, self._stemmer)
        self._reader = Reader(self.sandbox, self._extractor, self._cache, self._stemmer)
        self._tools = {
            t.name: t
            for t in (
                _Tool(
                    "search_files",
                    "Find documents by words or a name glob; use first for any question "
                    "on the documents.",
                    SearchArgs,
                    self._search,
                ),
                _Tool(
                    "read_file",
                    "Read a document page by page; use on a found path before answering.",
                    ReadArgs,
                    self._read,
                ),
                _Tool(
                    "list_files",
                    "List a folder; use when search finds nothing or to see what exists.",
                    ListArgs,
                    self._list,
                ),
            )
        }
        self._specs = [tool_spec(t.name, t.description, t.args) for t in self._tools.values()]

    @property
    def specs(self) -> list[dict[str, Any]]:
        """OpenAI tool specs for the three tools (a fresh copy each time)."""
        return json.loads(json.dumps(self._specs))  # type: ignore[no-any-return]

    async def start(self) -> None:
        """Open or create the index and start the background build and the watcher."""
        if not self.sandbox.root.is_dir():
            log.warning("the documents folder does not exist yet; it will be watched for")
        await self.indexer.start()

    async def close(self) -> None:
        """Stop the watcher, the extraction worker and the index (in that order, so a
        document stuck in the parser does not hold up shutdown)."""
        self.indexer.stop()
        await asyncio.to_thread(self._extractor.close)
        await self.indexer.close()

    async def reindex(self) -> ReindexReport:
        """Rebuild the whole index from the documents."""
        return await self.indexer.reindex()

    async def refresh(self, rel_path: str) -> FileReport:
        """Index one file now, e.g. right after an upload."""
        return await self.indexer.refresh(rel_path)

    @property
    def extraction_count(self) -> int:
        """Documents parsed since start (the extraction cache keeps this low)."""
        return self._extractor.count

    def status(self) -> IndexStatus:
        return self.indexer.status()

    async def wait_ready(self) -> None:
        """Return once the first index build is done (callers bound it with a timeout)."""
        await self.indexer.ready.wait()

    async def wait_synced(self) -> None:
        """Return once the index has caught up with files changed before this call."""
        await self.indexer.wait_synced()

    async def execute(self, name: str, arguments: str | Mapping[str, Any]) -> str:
        """Run one tool call; the result (or the error) is JSON text for the model."""
        tool = self._tools.get(name)
        if tool is None:
            return error_result(
                f"there is no tool named '{str(name)[:60]}'",
                "Use search_files, read_file or list_files.",
            )
        try:
            args = self._parse(tool, arguments)
        except ToolError as exc:
            return error_result(exc.message, exc.hint)
        try:
            return to_json(await tool.run(args))
        except ToolError as exc:
            return error_result(exc.message, exc.hint)
        except Exception:  # the model must get an answer; the traceback goes to the log
            log.exception("tool %s failed", name)
            return error_result(
                f"{name} failed unexpectedly", "Try again, or try another file or query."
            )

    @staticmethod
    def _parse(tool: _Tool, arguments: str | Mapping[str, Any]) -> BaseModel:
        raw: object = arguments
        if isinstance(arguments, str | bytes):
            text = arguments.strip() if isinstance(arguments, str) else arguments
            try:
                raw = json.loads(text) if text else {}
            except (ValueError, RecursionError):
                raise ToolError(
                    "the arguments are not valid JSON",
                    f"Send a JSON object, e.g. {_example(tool.name)}.",
                ) from None
        if not isinstance(raw, Mapping):
            raise ToolError("the arguments must be a JSON object", _example(tool.name))
        try:
            return tool.args.model_validate(dict(raw))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors(include_input=False, include_url=False)[:5]
            )
            raise ToolError(
                f"invalid arguments: {problems}", f"Example: {_example(tool.name)}"
            ) from None

    async def _search(self, args: SearchArgs) -> dict[str, Any]:
        return await asyncio.to_thread(self._searcher.search, args.query, args.limit)

    async def _read(self, args: ReadArgs) -> dict[str, Any]:
        try:
            return await asyncio.to_thread(
                self._reader.read,
                args.path,
                args.offset,
                args.limit,
                self.settings.read_page_chars,
            )
        except PathNotFoundError as exc:
            await self._offer_close(exc, args.path, self._file_paths)
            raise

    def _file_paths(self) -> list[str]:
        return list(self.indexer.state.visible) or [
            e.rel for e in self.sandbox.walk() if not e.is_dir
        ]

    def _folder_paths(self) -> list[str]:
        return sorted({p.rsplit("/", 1)[0] for p in self.indexer.state.visible if "/" in p})

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

    async def _list(self, args: ListArgs) -> dict[str, Any]:
        snapshot = self.indexer.state.visible if self.indexer.passes else None
        try:
            return await asyncio.to_thread(
                list_folder, self.sandbox, args.path, args.depth, snapshot
            )
        except PathNotFoundError as exc:
            await self._offer_close(exc, args.path, self._folder_paths)
            raise


def _example(name: str) -> str:
    return {
        "search_files": '{"query": "отпуск 2024"}',
        "read_file": '{"path": "docs/report.pdf", "offset": 1}',
        "list_files": '{"path": "", "depth": 1}',
    }[name]


def build_toolbox(settings: ToolSettings) -> Toolbox:
    """A toolbox for these settings, not started yet: the caller awaits `start()`."""
    return Toolbox(settings)

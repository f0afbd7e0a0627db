"""`python -m tools search|read|list|reindex`: print exactly the JSON the model would get.

This is how an admin checks what the bot will find; `--scope sales,common` applies a scope as
the bot does in a chat with those folders. Exit status 1 means the result is an error.

`search`, `read` and `list` only read the index, so they are safe beside a running bot: they
never write, rebuild or delete it. Without an index they answer from the files (names, and
pages read from the documents) and say so. `reindex` writes; beside a running bot, which
holds the index, it asks the bot to rebuild it (`tools.index.rebuild_request`) and waits for it.

With `EMBEDDING_MODEL` set (read as the bot reads it, `TerminalSettings`), `search` is the
bot's `search_files` by words and meaning, through the same code, on the vectors in DATA_DIR;
`reindex` builds those vectors after the index, in this process, with progress on standard
error, sending only text the embeddings cache lacks (so an interrupted build continues where it
stopped). Beside a running bot the command line builds nothing: the bot builds the vectors and
`search` uses what it built so far. Standard error says which sides a search used.
With DATABASE_URL set the bot keeps the embeddings it paid for in PostgreSQL, which this process
does not reach: `reindex` then builds the index only and leaves the vectors to the bot, rather
than pay for every embedding again.

With `RERANK_URL` set, `search` reranks its fused candidates through the same reranker client
as the bot's, and standard error says whether the reranker ordered the results or failed (then
they keep the fused order, as the bot's do, and the command still succeeds).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tools.config import TerminalSettings, ToolSettings
from tools.index.indexer import IndexInUseError
from tools.jail.documents_folder import documents_folder_problem
from tools.jail.scope import Scope, ScopeError
from tools.jsontext import to_json
from tools.toolbox import Toolbox
from tools.vectors.embeddings import EmbeddingsConfig, EmbeddingsError
from tools.vectors.progress import ProgressLines
from tools.vectors.rerank import RerankConfig
from tools.vectors.state import STORE_FOLDER

READY_TIMEOUT = 600.0
INTERRUPTED = 130
WORDS_ONLY = "search by words only: EMBEDDING_MODEL is empty"
NO_VECTORS = (
    "search by words only: there are no vectors in DATA_DIR yet; run python -m tools reindex "
    "(or start the bot) to build them"
)
CONTINUE = "run python -m tools reindex again to continue: what was embedded is kept"
VECTORS_IN_POSTGRES = (
    "the vectors for search by meaning are not built here: with DATABASE_URL set the bot keeps "
    "its embeddings in PostgreSQL, which python -m tools does not reach, and building them here "
    "would pay for every embedding again. Let the bot build them: it does as it indexes (start "
    "it; beside a running bot, python -m bot reindex has it rebuild), and its /status shows how "
    "far it is"
)
RERANKED = "reranked: the reranker at RERANK_URL ordered the results"
RERANK_FAILED = "the reranker at RERANK_URL failed ({error}): the results keep the fused order"
RERANK_IDLE = "the reranker was not asked: fewer than two results to order"


def build_parser() -> argparse.ArgumentParser:
    """The CLI; `--sandbox` and `--data` work before or after the command."""
    folders = argparse.ArgumentParser(add_help=False)
    folders.add_argument(
        "--sandbox",
        type=Path,
        default=argparse.SUPPRESS,
        help="documents folder (default: SANDBOX_DIR)",
    )
    folders.add_argument(
        "--data",
        type=Path,
        default=argparse.SUPPRESS,
        help="data folder for the index (default: DATA_DIR)",
    )
    folders.add_argument(
        "--scope",
        default=argparse.SUPPRESS,
        metavar="FOLDER[,FOLDER...]",
        help="see only these folders, as a chat with this scope does ('*' for everything)",
    )
    parser = argparse.ArgumentParser(
        prog="python -m tools",
        description="Run the bot's file tools from the terminal and print their JSON results.",
        epilog="With EMBEDDING_MODEL set (and EMBEDDING_BASE_URL, EMBEDDING_API_KEY as the bot "
        "reads them), search is by words and meaning as the bot's, and reindex builds the "
        "vectors too; beside a running bot, or with DATABASE_URL set, the bot builds them. With "
        "RERANK_URL set (and RERANK_MODEL, RERANK_API_KEY, ...), search reranks as the bot's.",
        parents=[folders],
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=help_text, description=help_text, parents=[folders])

    search = command("search", "search_files: find documents (by meaning too, with vectors)")
    search.add_argument("query", nargs="+", help="keywords, a phrase or a glob such as *.pdf")
    search.add_argument("--limit", type=int, default=10)
    read = command("read", "read_file: one page of a document")
    read.add_argument("path")
    read.add_argument("--offset", type=int, default=1)
    read.add_argument("--limit", type=int, default=None, help="max lines")
    listing = command("list", "list_files: a folder's entries")
    listing.add_argument("path", nargs="?", default="")
    listing.add_argument("--depth", type=int, default=1)
    command(
        "reindex",
        "rebuild the search index from scratch; with EMBEDDING_MODEL, then build the vectors "
        "(only text not embedded before is sent, so an interrupted build continues)",
    )
    return parser


def _call(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    if args.command == "search":
        return "search_files", {"query": " ".join(args.query), "limit": args.limit}
    if args.command == "read":
        call = {"path": args.path, "offset": args.offset}
        if args.limit is not None:
            call["limit"] = args.limit
        return "read_file", call
    return "list_files", {"path": args.path, "depth": args.depth}


def open_toolbox(
    settings: ToolSettings,
    *,
    writes: bool,
    embeddings: EmbeddingsConfig | None = None,
    rerank: RerankConfig | None = None,
) -> Toolbox:
    """The command line's toolbox: it writes the index only for `reindex`, and never watches
    the folder for long (one look at it is all a single command needs). With `embeddings` it
    keeps its vectors and their cache where the bot does, in DATA_DIR."""
    return Toolbox(
        settings, watch="rescan", writes_index=writes, embeddings=embeddings, rerank=rerank
    )


async def run(
    args: argparse.Namespace,
    settings: ToolSettings,
    *,
    embeddings: EmbeddingsConfig | None = None,
    embeddings_elsewhere: bool = False,
    rerank: RerankConfig | None = None,
    ready_timeout: float = READY_TIMEOUT,
    make_toolbox: Callable[..., Toolbox] = open_toolbox,
) -> tuple[str, bool]:
    """The JSON text to print and whether it is an error.

    A search reads the index a running bot writes, and waits for the bot's first build up to
    `ready_timeout`, then searches anyway: names are found at once and the result says the
    index is still being built. With no bot running it waits for nobody and says what it
    searched. `embeddings` (EMBEDDING_MODEL's) makes it search by meaning too, and `reindex`
    build the vectors, unless `embeddings_elsewhere` (DATABASE_URL: the bot's embeddings are in
    PostgreSQL); `rerank` (RERANK_URL's) makes the search reranked.
    """
    in_postgres = args.command == "reindex" and embeddings is not None and embeddings_elsewhere
    embeddings = None if in_postgres else _meaning_for(args.command, settings, embeddings)
    box = make_toolbox(
        settings,
        writes=args.command == "reindex",
        embeddings=embeddings,
        rerank=rerank if args.command == "search" else None,
    )
    if args.command == "search":
        await box.start()  # read and list need no index; reindex builds its own
    try:
        if args.command == "reindex":
            return await _reindex(box, ready_timeout, in_postgres=in_postgres)
        if args.command == "search":
            await _wait_for_index(box, ready_timeout)
            await _say_sides(box)
        name, call = _call(args)
        result = await box.execute(name, call, scope=getattr(args, "scope_value", None))
        if args.command == "search" and result.error is None:
            _say_reranker(box)
    finally:
        await box.close()
    return result.text, result.error is not None


def _meaning_for(
    command: str, settings: ToolSettings, embeddings: EmbeddingsConfig | None
) -> EmbeddingsConfig | None:
    """The embeddings a command uses: `reindex` builds with them, `search` searches with them
    when there are vectors to search (opening none, so a search never writes DATA_DIR);
    `read` and `list` need none."""
    if command == "search" and embeddings is None:
        sys.stderr.write(WORDS_ONLY + "\n")
    if command == "search" and embeddings is not None:
        if not (Path(settings.data_dir) / STORE_FOLDER).is_dir():
            sys.stderr.write(NO_VECTORS + "\n")
            return None
        return embeddings
    return embeddings if command == "reindex" else None


async def _say_sides(box: Toolbox) -> None:
    """Which sides the search uses, and how far the vectors it searches are."""
    try:
        coverage = await box.vector_coverage()
    except sqlite3.Error:
        coverage = None  # the index is being written or rebuilt: the search says what it can
    if coverage is None:
        return
    done, total = coverage
    line = f"search by words and meaning: {done} of {total} documents have vectors"
    if done < total:
        line += (
            "; the running bot builds the rest"
            if box.writer_elsewhere()
            else "; run python -m tools reindex to build the rest"
        )
    sys.stderr.write(line + "\n")


def _say_reranker(box: Toolbox) -> None:
    """Whether the reranker ordered the results, or why they keep the fused order."""
    reranker = box.reranker
    if reranker is None:
        return
    if reranker.counts["ok"]:
        line = RERANKED
    elif reranker.last_error is not None:
        line = RERANK_FAILED.format(error=reranker.last_error)
    else:
        line = RERANK_IDLE
    sys.stderr.write(line + "\n")


async def _reindex(box: Toolbox, within_s: float, *, in_postgres: bool) -> tuple[str, bool]:
    """Rebuild the index, then build the vectors here unless the bot keeps its embeddings in
    PostgreSQL (`in_postgres`) or a running bot rebuilds (it builds them)."""
    meaning = box.vector_status().configured or in_postgres
    try:
        report = await box.reindex()
    except IndexInUseError:
        return await _ask_the_bot(box, within_s, meaning=meaning), False
    out: dict[str, Any] = {
        "indexed": report.indexed,
        "skipped": report.skipped,
        "errors": report.errors,
        "seconds": round(report.seconds, 2),
    }
    if in_postgres:
        sys.stderr.write(VECTORS_IN_POSTGRES + "\n")
        out["vectors"] = VECTORS_IN_POSTGRES
        return to_json(out), False
    if not meaning:
        out["meaning"] = WORDS_ONLY
        return to_json(out), False
    sys.stderr.write("building the vectors for search by meaning (text not embedded before)\n")
    started = time.monotonic()
    try:
        status = await box.build_vectors(ProgressLines(sys.stderr))
    except EmbeddingsError as exc:
        out["vectors"] = {"error": str(exc), "hint": CONTINUE}
        return to_json(out), True
    out["vectors"] = {
        "passages": status.passages_done,
        "embeddings_calls": status.calls,
        "seconds": round(time.monotonic() - started, 2),
    }
    return to_json(out), False


async def _ask_the_bot(box: Toolbox, within_s: float, *, meaning: bool) -> str:
    """A running bot holds the index: it rebuilds it, asked by a request file it looks for;
    it builds the vectors too, so this process builds nothing."""
    sys.stderr.write("a running bot writes the search index: asked it to rebuild it; waiting…\n")
    if meaning:
        sys.stderr.write(BOT_BUILDS_VECTORS + "\n")
    if await box.ask_rebuild(within_s):
        out = {"rebuilt_by": "the running bot", "note": REBUILT}
    else:
        out = {"asked": "the running bot", "note": STILL_REBUILDING}
    if meaning:
        out["vectors"] = BOT_BUILDS_VECTORS
    return to_json(out)


REBUILT = "the running bot rebuilt the search index from the documents; its log has the counts"
STILL_REBUILDING = (
    "the running bot is rebuilding the search index from the documents and answers meanwhile; "
    "its log says when it is done"
)
BOT_BUILDS_VECTORS = (
    "the running bot builds the vectors for search by meaning as it indexes; nothing is "
    "embedded here (its /status shows how far it is)"
)


async def _wait_for_index(box: Toolbox, ready_timeout: float) -> None:
    """Wait while a running bot builds the index; without one, say what the search covers."""
    if not box.status().ready and not box.writer_elsewhere():
        sys.stderr.write(
            "the search index in DATA_DIR is missing or incomplete and no bot is running to "
            "build it: names are searched in every file, contents only in the files it "
            "holds. Start the bot or run python -m tools reindex to build it.\n"
        )
        return
    try:
        await asyncio.wait_for(box.wait_ready(), 1.0)
    except TimeoutError:
        sys.stderr.write("the bot is building the search index; waiting for it…\n")
        try:
            await asyncio.wait_for(box.wait_ready(), ready_timeout)
        except TimeoutError:
            sys.stderr.write("the index is not complete yet; searching what it holds\n")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    overrides: dict[str, Any] = {}
    if "sandbox" in args:
        overrides["sandbox_dir"] = args.sandbox
    if "data" in args:
        overrides["data_dir"] = args.data
    try:
        settings = TerminalSettings(**overrides)
    except ValidationError as exc:
        for error in exc.errors(include_input=False, include_url=False):
            name = str(error["loc"][0]).upper() if error["loc"] else "settings"
            sys.stderr.write(f"{name}: {error['msg']}\n")
        return 2
    if "scope" in args:
        try:
            args.scope_value = Scope.of(f for f in args.scope.split(",") if f.strip())
        except ScopeError as exc:
            sys.stderr.write(f"--scope: {exc}\n")
            return 2
    problem = documents_folder_problem(Path(settings.sandbox_dir))
    if problem is not None:
        sys.stderr.write(f"{problem}\n")
        return 2
    # The search says itself whether the reranker failed; its log line would say it twice.
    logging.getLogger("tools.vectors.rerank").setLevel(logging.ERROR)
    try:
        text, failed = asyncio.run(
            run(
                args,
                settings,
                embeddings=settings.embeddings(),
                embeddings_elsewhere=settings.embeddings_elsewhere,
                rerank=settings.rerank(),
            )
        )
    except KeyboardInterrupt:
        sys.stderr.write("interrupted" + (f"; {CONTINUE}" if args.command == "reindex" else ""))
        sys.stderr.write("\n")
        return INTERRUPTED
    sys.stdout.buffer.write(text.encode("utf-8") + b"\n")
    sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

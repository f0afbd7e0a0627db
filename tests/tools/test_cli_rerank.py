"""`python -m tools search` with RERANK_URL set: the bot's search_files, reranked, from the
terminal; and `reindex` with DATABASE_URL set, which leaves the vectors to the bot.

The command line runs as a process of its own, as an admin runs it, against the fake model
server's `/embeddings` and the fake rerank server on 127.0.0.1. The fake's scorer reverses the
order it is sent, so a reranked result is told from a fused one by its order alone.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bot.services import rerank_config
from bot.settings.model import Settings
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fake_reranker import FakeReranker
from tests.fakes.ports import free_port
from tests.tools.test_cli_meaning import MODEL, Folder
from tests.tools.vectors.test_rerank import DOCUMENTS as LEAVE_DOCUMENTS
from tests.tools.vectors.test_rerank import reversing
from tests.tools.vectors.test_vector_search import concept_encoder
from tools import Toolbox
from tools.__main__ import RERANKED, VECTORS_IN_POSTGRES
from tools.config import TerminalSettings, ToolSettings
from tools.vectors.embeddings import EmbeddingsConfig
from tools.vectors.rerank import RerankConfig
from tools.vectors.state import STORE_FOLDER

RERANK_KEY = "rr-cli-secret-0815"
RERANK_MODEL = "bge-reranker-v2-m3"
QUERY = "отпуск"
DB_PASSWORD = "pg-secret-4242"


@pytest.fixture
def reranker(reranker: FakeReranker) -> FakeReranker:
    """The shared fake, scoring so that the last text sent comes first."""
    reranker.scorer = reversing
    return reranker


@pytest.fixture
async def folder(tmp_path: Path, fake_llm: FakeLLM) -> Folder:
    fake_llm.embeddings.encoder = concept_encoder
    made = Folder(tmp_path, fake_llm)
    for rel, text in LEAVE_DOCUMENTS.items():
        (made.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (made.root / rel).write_text(text, encoding="utf-8")
    return made


def rerank_env(url: str) -> dict[str, str]:
    return {"RERANK_URL": url, "RERANK_MODEL": RERANK_MODEL, "RERANK_API_KEY": RERANK_KEY}


def parse(out: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(out)
    return result


def paths(found: dict[str, Any]) -> list[str]:
    return [r["path"] for r in found["results"]]


class TestReranked:
    async def test_prints_what_the_bots_reranked_search_files_returns(
        self, folder: Folder, reranker: FakeReranker
    ) -> None:
        built = await folder.cli("reindex")
        assert built.returncode == 0, built.stderr
        fused = await folder.cli("search", QUERY)
        assert fused.returncode == 0, fused.stderr
        assert "reranked" not in parse(fused.stdout)
        embeddings = EmbeddingsConfig(model=MODEL, base_url=folder.server.base_url)
        bot = Toolbox(
            ToolSettings(sandbox_dir=folder.root, data_dir=folder.data),
            watch_interval=0.05,
            embeddings=embeddings,
            rerank=RerankConfig(url=reranker.jina_url, model=RERANK_MODEL, api_key=RERANK_KEY),
        )
        await bot.start()
        try:
            await asyncio.wait_for(bot.wait_ready(), 30)
            await asyncio.wait_for(bot.wait_vectors(), 30)
            done = await folder.cli("search", QUERY, **rerank_env(reranker.jina_url))
            bots = json.loads((await bot.execute("search_files", {"query": QUERY})).text)
        finally:
            await bot.close()
        assert done.returncode == 0, done.stderr
        printed = parse(done.stdout)
        assert printed == bots
        assert printed["reranked"] is True
        assert len(paths(printed)) >= 3
        assert paths(printed) == paths(parse(fused.stdout))[::-1]
        assert RERANKED in done.stderr
        cli_request, bot_request = reranker.requests
        assert cli_request == bot_request, "the same candidates, texts and key"
        assert cli_request["auth"] == f"Bearer {RERANK_KEY}"
        assert RERANK_KEY not in done.stdout + done.stderr

    async def test_a_dead_reranker_leaves_the_fused_order_and_says_so(
        self, folder: Folder
    ) -> None:
        await folder.cli("reindex")
        fused = await folder.cli("search", QUERY)
        dead = f"http://127.0.0.1:{free_port()}/v1/rerank"
        done = await folder.cli("search", QUERY, **rerank_env(dead))
        assert done.returncode == 0, done.stderr
        printed = parse(done.stdout)
        assert printed == parse(fused.stdout)
        assert "reranked" not in printed
        assert (
            "the reranker at RERANK_URL failed (the reranker cannot be reached "
            "(ClientConnectorError)): the results keep the fused order"
        ) in done.stderr
        assert "Traceback" not in done.stderr
        assert "reranker unavailable" not in done.stderr, "said once, not logged again"
        assert RERANK_KEY not in done.stdout + done.stderr

    async def test_a_refusing_reranker_is_named_without_its_key(
        self, folder: Folder, reranker: FakeReranker
    ) -> None:
        await folder.cli("reindex")
        reranker.fail_next(401)
        done = await folder.cli("search", QUERY, **rerank_env(reranker.jina_url))
        assert done.returncode == 0, done.stderr
        assert "failed (HTTP 401 from the reranker)" in done.stderr
        assert reranker.requests[0]["auth"] == f"Bearer {RERANK_KEY}"
        assert RERANK_KEY not in done.stdout + done.stderr

    def test_the_reranker_is_the_bots(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        (tmp_path / "docs").mkdir()
        monkeypatch.chdir(tmp_path)
        (tmp_path / ".env").write_text(
            "SANDBOX_DIR=docs\nOPENAI_API_KEY=local\nRERANK_URL=http://127.0.0.1:9/rerank\n"
            f"RERANK_MODEL= {RERANK_MODEL} \nRERANK_API_KEY={RERANK_KEY}\n"
            "RERANK_CANDIDATES=12\nRERANK_TIMEOUT_S=0.5\nRERANK_DIALECT=tei\n",
            encoding="utf-8",
        )
        terminal = TerminalSettings().rerank()
        assert terminal is not None
        assert terminal == rerank_config(Settings())
        assert (terminal.candidates, terminal.timeout_s, terminal.dialect) == (12, 0.5, "tei")
        assert RERANK_KEY not in repr(terminal)
        monkeypatch.setenv("RERANK_URL", "")
        assert TerminalSettings().rerank() is None


class TestVectorsInPostgres:
    async def test_reindex_builds_the_index_and_leaves_the_vectors_to_the_bot(
        self, folder: Folder
    ) -> None:
        url = f"postgresql://bot:{DB_PASSWORD}@127.0.0.1:9/bot"
        done = await folder.cli("reindex", DATABASE_URL=url)
        assert done.returncode == 0, done.stderr
        out = parse(done.stdout)
        assert out["indexed"] == len([p for p in folder.root.rglob("*") if p.is_file()])
        assert out["vectors"] == VECTORS_IN_POSTGRES
        assert VECTORS_IN_POSTGRES in done.stderr
        assert "python -m bot reindex" in out["vectors"]
        assert folder.server.embeddings.calls == 0
        assert not (folder.data / STORE_FOLDER).exists()
        assert DB_PASSWORD not in done.stdout + done.stderr
        search = await folder.cli("search", "отгулы", DATABASE_URL=url, EMBEDDING_MODEL="")
        assert paths(parse(search.stdout))[0] == "правила/отдых.txt", "the words are indexed"

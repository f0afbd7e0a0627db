"""The reranker wired by the services: behind a breaker on the bot's clock, its outcomes on
the metrics page labelled by outcome only (never the URL or the key)."""

from __future__ import annotations

import json
from pathlib import Path

from bot.entrance.loading import load_settings
from bot.services import close_services, open_services
from tests.fakes.clock import FakeClock
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.ports import free_port

KEY = "rr-metrics-secret-77"


async def test_a_dead_reranker_is_counted_then_passed_over(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("отпуск.txt", "отпуск-2.txt"):
        (docs / name).write_text("Отпуск длится 28 дней.", encoding="utf-8")
    url = f"http://127.0.0.1:{free_port()}/v1/rerank"
    settings = load_settings(
        data_dir=tmp_path / "data",
        sandbox_dir=docs,
        openai_api_key="sk-test-rerank-0042",
        openai_base_url=fake_llm.base_url,
        rerank_url=url,
        rerank_api_key=KEY,
        _env_file=None,
    )
    clock = FakeClock()
    services = await open_services(settings, clock=clock)
    try:
        await services.toolbox.wait_ready()
        for _ in range(2):
            result = await services.toolbox.execute("search_files", {"query": "отпуск"})
            assert len(json.loads(result.text)["results"]) == 2
        page = services.metrics.render().decode()
    finally:
        await close_services(services)
    assert 'docs_bot_rerank_total{outcome="error"} 1.0' in page
    assert 'docs_bot_rerank_total{outcome="skipped"} 1.0' in page
    assert 'docs_bot_rerank_total{outcome="ok"} 0.0' in page
    assert url not in page and KEY not in page

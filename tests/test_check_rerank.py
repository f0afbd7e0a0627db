"""`check`'s reranker line: one request to RERANK_URL, its answer or its failure said plainly,
the key never shown; and a bad RERANK_URL refused with the other settings at start. A fake
rerank server on 127.0.0.1 plays the server."""

from __future__ import annotations

from typing import Any

import pytest

from bot.console.check.rerank import check_rerank
from bot.console.check.run import serve
from bot.entrance.loading import SettingsError, load_settings
from tests.fakes.fake_reranker import FakeReranker
from tests.fakes.ports import free_port

KEY = "rr-check-secret-321"


def _settings(url: str | None, **more: Any) -> Any:
    return load_settings(
        openai_api_key="sk-chat-key-789",
        rerank_url=url,
        rerank_api_key=KEY if url else None,
        _env_file=None,
        **more,
    )


async def test_tei_answering_is_reported_with_its_dialect(reranker: FakeReranker) -> None:
    outcome = await check_rerank(_settings(reranker.tei_url))
    assert outcome.ok is True
    assert outcome.text == f"{reranker.tei_url} puts the answering passage first (tei dialect)"
    assert reranker.requests[0]["auth"] == f"Bearer {KEY}"


async def test_the_documents_dialect_names_its_model(reranker: FakeReranker) -> None:
    outcome = await check_rerank(_settings(reranker.jina_url, rerank_model="jina-reranker-v2"))
    assert outcome.ok is True
    assert outcome.text.startswith(f"jina-reranker-v2 at {reranker.jina_url} ")
    assert outcome.text.endswith("(jina dialect)")


async def test_a_refused_key_is_said_without_the_key(reranker: FakeReranker) -> None:
    reranker.fail_next(401)
    outcome = await check_rerank(_settings(reranker.jina_url))
    assert outcome.ok is False
    assert "HTTP 401" in outcome.text and reranker.jina_url in outcome.text
    assert KEY not in outcome.text


async def test_nobody_listening_fails_the_line() -> None:
    url = f"http://127.0.0.1:{free_port()}/rerank"
    outcome = await check_rerank(_settings(url))
    assert outcome.ok is False
    assert "cannot be reached" in outcome.text and KEY not in outcome.text


async def test_the_line_is_in_the_check_only_with_a_url(
    reranker: FakeReranker, capsys: pytest.CaptureFixture[str]
) -> None:
    await serve(_settings(reranker.tei_url), offline=True)
    assert "· reranker: offline" in capsys.readouterr().out
    await serve(_settings(None), offline=True)
    assert "reranker" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("values", "said"),
    [
        ({"rerank_url": "gpu:8080/rerank"}, "RERANK_URL: must be an http:// or https:// URL"),
        ({"rerank_model": "bge"}, "RERANK_MODEL set but RERANK_URL is empty"),
        ({"rerank_url": "http://gpu/rerank", "rerank_dialect": "cohere"}, "RERANK_DIALECT"),
        ({"rerank_url": "http://gpu/rerank", "rerank_timeout_s": 0}, "RERANK_TIMEOUT_S"),
    ],
)
def test_bad_settings_are_refused_at_start(values: dict[str, Any], said: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(openai_api_key="sk-chat-key-789", _env_file=None, **values)
    assert said in caught.value.report()

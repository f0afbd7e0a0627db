"""`check`'s embeddings line: one call to the embeddings server, its answer or its failure said
plainly, the key never shown. A real aiohttp server on 127.0.0.1 plays the server."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bot.console.check.embeddings import check_embeddings
from bot.entrance.loading import load_settings
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.http_server import serving
from tests.fakes.ports import free_port

KEY = "sk-embeddings-secret-456"
MODEL = "text-embedding-3-small"


def _settings(url: str | None, **more: Any) -> Any:
    return load_settings(
        openai_api_key="sk-chat-key-789",
        embedding_model=MODEL,
        embedding_base_url=url,
        embedding_api_key=KEY,
        _env_file=None,
        **more,
    )


async def test_a_vector_is_reported_with_its_size() -> None:
    seen: list[dict[str, Any]] = []

    async def embed(request: web.Request) -> web.Response:
        seen.append({"body": await request.json(), "auth": request.headers["Authorization"]})
        item = {"object": "embedding", "index": 0, "embedding": [0.1] * 384}
        usage = {"prompt_tokens": 5, "total_tokens": 5}
        return web.json_response(
            {"object": "list", "data": [item], "model": MODEL, "usage": usage}
        )

    async with serving(embed, path="/v1/embeddings", method="POST") as url:
        outcome = await check_embeddings(_settings(f"{url}/v1"))
    assert outcome.ok is True
    assert outcome.text == f"{MODEL} at {url}/v1/ gives vectors of 384 numbers"
    (call,) = seen
    assert call["body"]["model"] == MODEL
    assert call["auth"] == f"Bearer {KEY}", "the embeddings key, not the chat model's"


async def test_a_refused_key_is_said_without_the_key() -> None:
    async def refuse(_: web.Request) -> web.Response:
        body = {"error": {"message": f"Incorrect API key provided: {KEY}"}}
        return web.json_response(body, status=401)

    async with serving(refuse, path="/v1/embeddings", method="POST") as url:
        outcome = await check_embeddings(_settings(f"{url}/v1"))
    assert outcome.ok is False
    assert "401" in outcome.text and KEY not in outcome.text


async def test_an_unreachable_server_names_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    outcome = await check_embeddings(_settings(url))
    assert outcome.ok is False
    assert f"127.0.0.1:{url.split(':')[2]}" in outcome.text


async def test_skipped_without_a_model_and_offline() -> None:
    off = load_settings(openai_api_key="sk-chat-key-789", _env_file=None)
    assert (await check_embeddings(off)).ok is None
    assert (await check_embeddings(_settings("http://127.0.0.1:9/v1"), offline=True)).ok is None


def test_the_key_and_url_fall_back_to_the_model_servers() -> None:
    settings = load_settings(
        openai_api_key="sk-chat-key-789",
        openai_base_url="http://127.0.0.1:11434/v1",
        embedding_model="nomic-embed-text",
        _env_file=None,
    )
    assert settings.embedding_url == "http://127.0.0.1:11434/v1"
    key = settings.embedding_key
    assert key is not None and key.get_secret_value() == "sk-chat-key-789"


class TestRepliesOfTheWrongShape:
    """The fake model server's `/embeddings` answering as servers set up wrongly do: the line
    says what is wrong and what to change, never a vector size that means nothing."""

    async def test_one_vector_per_token_is_named_with_the_fix(self, fake_llm: FakeLLM) -> None:
        fake_llm.embeddings.per_token = True
        outcome = await check_embeddings(_settings(fake_llm.base_url))
        assert outcome.line() == (
            "✗ embeddings: the embeddings server returns one vector per token, not one per "
            "text: start llama.cpp's llama-server with --pooling mean, or use an embedding "
            f"model ({MODEL} at {fake_llm.base_url}/)"
        )
        assert fake_llm.embeddings.calls == 1

    async def test_a_vector_with_something_else_in_it(self) -> None:
        async def embed(_: web.Request) -> web.Response:
            item = {"object": "embedding", "index": 0, "embedding": [0.1, "NaN", 0.3]}
            return web.json_response({"object": "list", "data": [item], "model": MODEL})

        async with serving(embed, path="/v1/embeddings", method="POST") as url:
            outcome = await check_embeddings(_settings(f"{url}/v1"))
        assert outcome.ok is False
        assert outcome.text.startswith("the embeddings server sent a vector with 'NaN' among")

    async def test_no_vector_at_all(self, fake_llm: FakeLLM) -> None:
        fake_llm.embeddings.encoder = lambda texts: []
        outcome = await check_embeddings(_settings(fake_llm.base_url))
        assert outcome.ok is False
        assert "\n" not in outcome.text
        assert outcome.text.startswith("the embeddings server's reply could not be read")

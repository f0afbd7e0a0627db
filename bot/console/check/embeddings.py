"""Whether the embeddings server answers EMBEDDING_MODEL: one call of one short text.

Search by meaning needs the server to embed each document's passages and each question; a
wrong model name or key would otherwise show only as "search by meaning unavailable" in the
results. The answer's dimension is said, so an admin sees which model answered. Failures are
worded by the agent's error translation, with the URL tried; the key is never shown. The
answer's shape is judged by the same reading the vector build uses, so a server that sends one
vector per token (llama.cpp without pooling) fails here, in one line saying what to change.
"""

from __future__ import annotations

import openai

from bot.agent.model_errors import translate
from bot.console.check.outcome import Outcome, failed, passed, skipped
from bot.settings.model import Settings
from tools.vectors.embeddings import EmbeddingsShapeError, unreadable_reply, vectors_in

SUBJECT = "embeddings"
TIMEOUT_S = 20.0
PROBE = "Проверка: сколько дней отпуска?"
_SHOWN_CHARS = 300


async def check_embeddings(
    settings: Settings, *, offline: bool = False, timeout_s: float = TIMEOUT_S
) -> Outcome:
    """Skipped when EMBEDDING_MODEL is empty or the check is offline; else one call."""
    if not settings.embedding_model:
        return skipped(SUBJECT, "EMBEDDING_MODEL is empty: search by words only")
    if offline:
        return skipped(SUBJECT, "offline")
    key = settings.embedding_key
    secret = key.get_secret_value() if key else "not-set"
    client = openai.AsyncOpenAI(
        api_key=secret, base_url=settings.embedding_url, timeout=timeout_s, max_retries=0
    )
    url = str(client.base_url)
    model = settings.embedding_model
    try:
        reply = await client.embeddings.create(model=model, input=[PROBE])
        vectors = vectors_in(reply.data, 1)
    except ValueError as exc:  # the SDK's own reading of the vectors (base64) failed
        return failed(SUBJECT, f"{unreadable_reply(exc)} ({model} at {url})")
    except EmbeddingsShapeError as exc:
        return failed(SUBJECT, f"{str(exc)[:_SHOWN_CHARS]} ({model} at {url})")
    except openai.OpenAIError as exc:

        def scrub(text: str) -> str:
            return (text.replace(secret, "***") if len(secret) >= 6 else text)[:_SHOWN_CHARS]

        error = translate(
            exc, scrub=scrub, base_url=url, timeout_text=f"{url} did not answer in {timeout_s:g} s"
        )
        text = str(error)
        return failed(SUBJECT, text if url in text else f"{text} (at {url})")
    finally:
        await client.close()
    return passed(SUBJECT, f"{model} at {url} gives vectors of {len(vectors[0])} numbers")

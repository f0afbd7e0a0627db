"""Whether the model server answers with the key and offers MODEL.

The server is asked for its list of models. When it keeps no list (404), or the list cannot
be read, one completion of a single token is asked instead, through the agent's own client.
Failures are worded by the agent's own error translation, as the bot would meet them: an
unreachable server with the URL tried, a refused key, a timeout. The key is never shown.
"""

from __future__ import annotations

import openai

from bot.agent import AgentError, ModelAuthError, build_client
from bot.agent.llm import ModelClient
from bot.agent.model_errors import translate
from bot.check.outcome import Outcome, failed, passed
from bot.settings.model import Settings

SUBJECT = "model server"
TIMEOUT_S = 20.0
_SHOWN_MODELS = 10
_SHOWN_CHARS = 300
_REFUSED = (401, 403)  # the key; any other status leaves the list unread, not the server
_NO_LIST = (404, 405, 501)
_NO_LIST_TEXT = "the server keeps no list of models"
_LIST_FAILED_TEXT = "the server's list of models could not be read"
_PING = [{"role": "user", "content": "Reply with one word: ok"}]


async def check_model_server(settings: Settings, *, timeout_s: float = TIMEOUT_S) -> Outcome:
    """List the models (or ask for one token) without retries, for `timeout_s` at most."""
    quick = settings.model_copy(
        update={
            "request_timeout": min(settings.request_timeout, timeout_s),
            "model_max_retries": 0,
        }
    )
    client = build_client(quick)
    url = str(client.base_url)
    try:
        try:
            page = await client.models.list()
            offered = [str(model.id) for model in page.data]
        except openai.APIStatusError as exc:
            if exc.status_code in _REFUSED:
                return failed(SUBJECT, _reason(_translated(exc, client, url), url))
            listing = _NO_LIST_TEXT if exc.status_code in _NO_LIST else _LIST_FAILED_TEXT
            return await _one_token(client, settings.model, url, listing)
        except openai.APIConnectionError as exc:  # unreachable, or no answer in time
            return failed(SUBJECT, _reason(_translated(exc, client, url), url))
        except (openai.OpenAIError, AttributeError, TypeError):  # an answer that is no list
            return await _one_token(client, settings.model, url, _LIST_FAILED_TEXT)
    finally:
        await client.close()
    return _judge(settings.model, offered, url)


def _judge(model: str, offered: list[str], url: str) -> Outcome:
    if model in offered or f"{model}:latest" in offered:  # Ollama names its default tag
        return passed(SUBJECT, f"{model} is offered at {url}")
    if not offered:
        return failed(SUBJECT, f"{url} offers no models; MODEL {model} cannot be used")
    names = ", ".join(offered[:_SHOWN_MODELS])
    more = f" and {len(offered) - _SHOWN_MODELS} more" if len(offered) > _SHOWN_MODELS else ""
    return failed(SUBJECT, f"MODEL {model} is not offered at {url}; it offers {names}{more}")


async def _one_token(client: openai.AsyncOpenAI, model: str, url: str, listing: str) -> Outcome:
    """Ask for one token; `listing` says why the list of models was not used."""
    try:
        await ModelClient(client, model, 1).complete(_PING, None)
    except AgentError as exc:
        return failed(SUBJECT, _reason(exc, url))
    return passed(SUBJECT, f"{model} answered a one-token request at {url} ({listing})")


def _translated(exc: openai.OpenAIError, client: openai.AsyncOpenAI, url: str) -> AgentError:
    key = client.api_key

    def scrub(text: str) -> str:
        if key and len(key) >= 6:
            text = text.replace(key, "***")
        return text[:_SHOWN_CHARS]

    timeout = client.timeout
    seconds = f"{timeout:g} s" if isinstance(timeout, int | float) else "time"
    return translate(
        exc, scrub=scrub, base_url=url, timeout_text=f"{url} did not answer within {seconds}"
    )


def _reason(exc: AgentError, url: str) -> str:
    text = str(exc).replace("cannot reach the model server at", "cannot reach")
    if isinstance(exc, ModelAuthError) and text.startswith(("HTTP 401", "HTTP 403")):
        text = f"the key in OPENAI_API_KEY was refused ({text})"
    return text if url in text else f"{text} (at {url})"

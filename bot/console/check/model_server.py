"""Whether a model server answers with its key and offers the model: MODEL, then each fallback.

The server is asked for its list of models. When it keeps no list (404), or the list cannot
be read, one completion of a single token is asked instead, through the agent's own client.
Failures are worded by the agent's own error translation, as the bot would meet them: an
unreachable server with the URL tried, a refused key, a timeout; each names the setting to
fix. A server's list, once read with a key, serves every model asked there with that key, so
the fallbacks that share the main server and key cost no second request. The key is never shown.
"""

from __future__ import annotations

from dataclasses import dataclass

import openai
from pydantic import SecretStr

from bot.agent import AgentError, ModelAuthError, build_client
from bot.agent.llm import ModelClient
from bot.agent.model_errors import translate
from bot.console.check.outcome import Outcome, failed, passed
from bot.settings.fallbacks import FallbackModel
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
_AGENT_HINT = "(check MODEL and OPENAI_BASE_URL)"


@dataclass(frozen=True, slots=True)
class ModelTarget:
    """A model to try, on which server, with which key, and the settings that name each.

    `base_url` None is the SDK's default server; `key` None sends no key (a placeholder).
    """

    subject: str
    model: str
    base_url: str | None
    key: SecretStr | None
    model_setting: str = "MODEL"
    url_setting: str = "OPENAI_BASE_URL"
    key_setting: str = "OPENAI_API_KEY"


def main_target(settings: Settings) -> ModelTarget:
    """MODEL on OPENAI_BASE_URL with OPENAI_API_KEY."""
    return ModelTarget(SUBJECT, settings.model, settings.openai_base_url, settings.openai_api_key)


def fallback_targets(settings: Settings) -> tuple[ModelTarget, ...]:
    """Each model of FALLBACK_MODELS with the server and key the chain asks it with."""
    return tuple(_fallback_target(settings, model) for model in settings.fallbacks)


def _fallback_target(settings: Settings, model: FallbackModel) -> ModelTarget:
    own_server = model.base_url is not None
    shares_key = not own_server and model.api_key == settings.openai_api_key
    return ModelTarget(
        f"fallback {model.name}",
        model.name,
        model.base_url if own_server else settings.openai_base_url,
        model.api_key,
        model_setting="FALLBACK_MODELS",
        url_setting="FALLBACK_MODELS" if own_server else "OPENAI_BASE_URL",
        key_setting="OPENAI_API_KEY" if shares_key else "FALLBACK_API_KEYS",
    )


@dataclass(frozen=True, slots=True)
class _Listing:
    """What a server's list of models said: the names, or why none (then `error` or `note`)."""

    offered: list[str] | None
    note: str = ""
    error: AgentError | None = None


class Listings:
    """The lists of models read during one `check`, by server URL and key, asked once each."""

    def __init__(self) -> None:
        self._read: dict[tuple[str, str], _Listing] = {}

    async def read(self, client: openai.AsyncOpenAI) -> _Listing:
        """The list `client`'s server gives `client`'s key, asked only the first time."""
        asked = (str(client.base_url), client.api_key)
        if asked not in self._read:
            self._read[asked] = await _list(client)
        return self._read[asked]


async def check_model_server(
    settings: Settings,
    target: ModelTarget | None = None,
    *,
    listings: Listings | None = None,
    timeout_s: float = TIMEOUT_S,
) -> Outcome:
    """Whether `target` (MODEL by default) is offered: the list of models (read once per
    server and key in `listings`), else one token; no retries, `timeout_s` at most."""
    target = target or main_target(settings)
    listings = listings or Listings()
    quick = settings.model_copy(
        update={
            "request_timeout": min(settings.request_timeout, timeout_s),
            "model_max_retries": 0,
        }
    )
    # A FallbackModel is asked on exactly its server with exactly its key: MODEL is one here.
    client = build_client(quick, FallbackModel(target.model, target.base_url, target.key))
    url = str(client.base_url)
    try:
        listing = await listings.read(client)
        if listing.error is not None:
            return failed(target.subject, _reason(listing.error, url, target))
        if listing.offered is None:
            return await _one_token(client, target, url, listing.note)
    finally:
        await client.close()
    return _judge(target, listing.offered, url)


async def _list(client: openai.AsyncOpenAI) -> _Listing:
    url = str(client.base_url)
    try:
        page = await client.models.list()
        return _Listing([str(model.id) for model in page.data])
    except openai.APIStatusError as exc:
        if exc.status_code in _REFUSED:
            return _Listing(None, error=_translated(exc, client, url))
        return _Listing(None, _NO_LIST_TEXT if exc.status_code in _NO_LIST else _LIST_FAILED_TEXT)
    except openai.APIConnectionError as exc:  # unreachable, or no answer in time
        return _Listing(None, error=_translated(exc, client, url))
    except (openai.OpenAIError, AttributeError, TypeError):  # an answer that is no list
        return _Listing(None, _LIST_FAILED_TEXT)


def _judge(target: ModelTarget, offered: list[str], url: str) -> Outcome:
    model, subject = target.model, target.subject
    named = _named(target)
    if model in offered or f"{model}:latest" in offered:  # Ollama names its default tag
        return passed(subject, f"{model} is offered at {url}")
    if not offered:
        return failed(subject, f"{url} offers no models; {named} cannot be used")
    names = ", ".join(offered[:_SHOWN_MODELS])
    more = f" and {len(offered) - _SHOWN_MODELS} more" if len(offered) > _SHOWN_MODELS else ""
    return failed(subject, f"{named} is not offered at {url}; it offers {names}{more}")


def _named(target: ModelTarget) -> str:
    """How a message names the model: `MODEL x`, or `x (in FALLBACK_MODELS)`."""
    if target.model_setting == "MODEL":
        return f"MODEL {target.model}"
    return f"{target.model} (in {target.model_setting})"


async def _one_token(
    client: openai.AsyncOpenAI, target: ModelTarget, url: str, listing: str
) -> Outcome:
    """Ask for one token; `listing` says why the list of models was not used."""
    try:
        await ModelClient(client, target.model, 1).complete(_PING, None)
    except AgentError as exc:
        return failed(target.subject, _reason(exc, url, target))
    return passed(
        target.subject, f"{target.model} answered a one-token request at {url} ({listing})"
    )


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


def _reason(exc: AgentError, url: str, target: ModelTarget) -> str:
    text = str(exc).replace("cannot reach the model server at", "cannot reach")
    if target.model_setting != "MODEL":
        text = text.replace(_AGENT_HINT, f"(check {target.model_setting})")
    if isinstance(exc, ModelAuthError) and text.startswith(("HTTP 401", "HTTP 403")):
        if target.key is None:
            text = f"{url} wants a key ({text}); give {target.model} one in {target.key_setting}"
        elif target.key_setting == "FALLBACK_API_KEYS":
            text = f"the key for {target.model} in FALLBACK_API_KEYS was refused ({text})"
        else:
            text = f"the key in {target.key_setting} was refused ({text})"
    elif target.url_setting != "OPENAI_BASE_URL" and text.startswith("cannot reach"):
        text = f"{text}; its URL is set in {target.url_setting}"
    return text if url in text else f"{text} (at {url})"

"""Speech to text for voice questions, over any OpenAI-compatible transcription endpoint.

Voice messages are asked like typed questions once they are text, so the front door needs one
call: bytes in, a transcript out. Failures leave here as the agent's own error families
(`ModelUnavailable`, `ModelAuthError`, `ModelRateLimited`, `ModelBadReply`), so they are told
to users in the same plain words as the chat model's, and their texts never carry the key.

One OpenAI key usually does both jobs: the chat model's client is reused unless
TRANSCRIBE_BASE_URL or TRANSCRIBE_API_KEY name another server, such as a local speech one.
Nothing here imports aiogram.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from bot.agent.client import LazyClient
from bot.agent.model_errors import detail_of, translate
from bot.agent.types import AgentError, ContextOverflow, ModelAuthError, ModelBadReply
from bot.settings.model import Settings
from bot.storage.usage import Tokens

if TYPE_CHECKING:
    import openai
    from openai import AsyncOpenAI

log = logging.getLogger(__name__)

_MAX_DETAIL = 300


class Transcriber:
    """Turns recorded speech into text with TRANSCRIBE_MODEL.

    `owns_client`: the client was made for transcriptions alone, so `close` closes it; a
    client shared with the chat model is closed by its owner. A `LazyClient` is built (and
    the SDK imported) at the first transcription.
    """

    def __init__(
        self, client: AsyncOpenAI | LazyClient, model: str, *, owns_client: bool = False
    ) -> None:
        self._lazy = client if isinstance(client, LazyClient) else LazyClient.of(client)
        self._model = model
        self._owns_client = owns_client

    @property
    def _client(self) -> AsyncOpenAI:
        return self._lazy.get()

    @property
    def model(self) -> str:
        """The transcription model's name."""
        return self._model

    @property
    def base_url(self) -> str:
        """The server transcriptions are sent to."""
        return str(self._client.base_url)

    async def transcribe(
        self,
        data: bytes,
        filename: str,
        mime: str,
        language_hint: str | None,
        *,
        heard: Callable[[Tokens], Awaitable[None]] | None = None,
    ) -> str:
        """The text spoken in `data` ("" when nothing was recognised).

        `filename` needs the right extension (servers tell the format by it); `language_hint`
        is an ISO-639-1 code such as `ru`, or None to let the server detect the language.
        `heard` gets the tokens the server says the transcription took, when it says.

        Raises:
            AgentError: one of the model's error families; the text is for the log.
        """
        import openai  # noqa: PLC0415 - loaded with the client, at the first call

        try:
            raw = await self._client.audio.transcriptions.with_raw_response.create(
                model=self._model,
                file=(filename, data, mime),
                language=language_hint or openai.omit,
                response_format="json",
            )
        except openai.OpenAIError as exc:
            raise self._translate(exc) from exc
        text = _transcript(raw.content, self._scrub)
        tokens = _tokens_of(raw.content)
        if heard is not None and tokens is not None:
            await heard(tokens)
        return text

    async def close(self) -> None:
        """Close the client if it was made for transcriptions alone."""
        if self._owns_client:
            await self._lazy.close()

    def _translate(self, exc: openai.OpenAIError) -> AgentError:
        import openai  # noqa: PLC0415 - here only after a call, so already loaded

        if isinstance(exc, openai.APIStatusError) and exc.status_code in (404, 413):
            detail = self._scrub(detail_of(exc))
            if exc.status_code == 413:  # the family the front door tells as "too big"
                return ContextOverflow(f"the recording is too large to transcribe: {detail}")
            return ModelAuthError(
                f"the transcription server answered HTTP 404: {detail} "
                "(check TRANSCRIBE_MODEL and TRANSCRIBE_BASE_URL)"
            )
        error = translate(
            exc, scrub=self._scrub, base_url=self._client.base_url, timeout_text=self._timeout()
        )
        return type(error)(f"transcription failed: {error}")

    def _timeout(self) -> str:
        timeout = self._client.timeout
        if isinstance(timeout, int | float):
            return f"the transcription server did not answer within {timeout:g}s"
        return "the transcription server did not answer in time"

    def _scrub(self, text: str) -> str:
        key = self._client.api_key
        if key and len(key) >= 6:
            text = text.replace(key, "***")
        return text[:_MAX_DETAIL]


def _transcript(content: bytes, scrub: Callable[[str], str]) -> str:
    """The text of a transcription reply: `{"text": …}` as OpenAI sends it, or plain text as
    some local servers do whatever was asked for."""
    text = content.decode("utf-8", "replace")
    try:
        body = json.loads(text)
    except ValueError:
        return text.strip()
    if isinstance(body, dict) and isinstance(body.get("text"), str):
        return str(body["text"]).strip()
    if isinstance(body, str):
        return body.strip()
    msg = f"the transcription server sent no text: {scrub(text[:80])!r}"
    raise ModelBadReply(msg)


def _tokens_of(content: bytes) -> Tokens | None:
    """The tokens a transcription reply says it took (`usage` of type `tokens`, as OpenAI's
    token-billed models send); None for a reply billed by the second or saying nothing."""
    try:
        body = json.loads(content)
    except ValueError:
        return None
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict) or usage.get("type", "tokens") != "tokens":
        return None
    prompt, completion = usage.get("input_tokens"), usage.get("output_tokens")
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return Tokens(prompt, 0, completion)


def build_transcriber(
    settings: Settings, chat_client: AsyncOpenAI | LazyClient
) -> Transcriber | None:
    """The transcriber the settings ask for; None when TRANSCRIBE_MODEL is empty.

    The chat model's client is reused when the transcription server and key are its own;
    otherwise a second client is made, with the same timeout and retries.
    """
    if not settings.voice_enabled:
        log.info("voice questions are off (TRANSCRIBE_MODEL is empty)")
        return None
    if not _separate_server(settings):
        log.info("voice questions: %s on the model server", settings.transcribe_model)
        return Transcriber(chat_client, settings.transcribe_model)
    log.info(
        "voice questions: %s at %s", settings.transcribe_model, settings.transcribe_url or "OpenAI"
    )
    return Transcriber(
        LazyClient(lambda: _speech_client(settings)), settings.transcribe_model, owns_client=True
    )


def _speech_client(settings: Settings) -> AsyncOpenAI:
    """A client of its own for a separate transcription server, with the chat model's timeout
    and retries."""
    from openai import AsyncOpenAI, DefaultAioHttpClient  # noqa: PLC0415 - at the first call

    key = settings.transcribe_key
    return AsyncOpenAI(
        api_key=key.get_secret_value() if key else "not-set",
        base_url=settings.transcribe_url,
        timeout=settings.request_timeout,
        max_retries=settings.model_max_retries,
        http_client=DefaultAioHttpClient(timeout=settings.request_timeout),
    )


def _separate_server(settings: Settings) -> bool:
    """Whether TRANSCRIBE_BASE_URL or TRANSCRIBE_API_KEY differ from the chat model's."""
    url = settings.transcribe_base_url
    key = settings.transcribe_api_key
    other_url = url is not None and url != settings.openai_base_url
    other_key = key is not None and key != settings.openai_api_key
    return other_url or other_key

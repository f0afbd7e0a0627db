"""What the agent loop promises its callers: events, the answer, and the errors it raises.

The Telegram layer, the terminal chat and the tests depend on these names only, never on how
the loop works inside.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from bot.agent.quotes.verify import QuoteCheck
from bot.storage.history import Usage
from tools.jail.scope import Scope
from tools.results import ToolResult
from tools.tool import PictureMode


class ToolRunner(Protocol):
    """The toolbox as the loop sees it: specs to attach, one way to run a call, and what a
    call is about (for progress lines)."""

    @property
    def specs(self) -> list[dict[str, Any]]:
        """OpenAI tool specs, attached to every request that allows tools; the same for the
        runner's whole life (the agent reads them once)."""
        ...

    def subject(self, name: str, arguments: Mapping[str, Any]) -> str | None:
        """What a progress line shows for the call (its query, its path); None for a tool
        that does not exist."""
        ...

    async def execute(
        self, name: str, arguments: str | Mapping[str, Any], *, scope: Scope | None = None
    ) -> ToolResult:
        """Run one call within `scope` (None: everything); problems the model caused come
        back as a failed result."""
        ...


class PictureToolRunner(ToolRunner, Protocol):
    """A toolbox whose read_file can also show its page as a picture, to a model that takes
    pictures (`tools.results.PagePicture` on the result)."""

    @property
    def picture_specs(self) -> list[dict[str, Any]]:
        """The specs offered to a model that takes pictures: read_file with `picture`."""
        ...

    async def execute(
        self,
        name: str,
        arguments: str | Mapping[str, Any],
        *,
        scope: Scope | None = None,
        pictures: PictureMode = "off",
    ) -> ToolResult:
        """As `ToolRunner.execute`; `pictures` says whether a read may show its page."""
        ...


def page_drawer(tools: ToolRunner) -> PictureToolRunner | None:
    """`tools` as a runner that can show pages as pictures, when it is one.

    Looked up statically: a protocol `isinstance` would read every property, and the specs
    are taken once (a fresh copy each time they are read).
    """
    if inspect.getattr_static(tools, "picture_specs", None) is None:
        return None
    return cast("PictureToolRunner", tools)


@dataclass(frozen=True, slots=True)
class ToolStarted:
    """The model asked for a tool call and it is about to run.

    `subject` is what the call is about in the tool's own terms (a query, a path); None when
    the model named a tool that does not exist.
    """

    call_id: str
    name: str
    arguments: Mapping[str, Any]
    subject: str | None = None


@dataclass(frozen=True, slots=True)
class ToolFinished:
    """A tool call ended; `error` is the message the model got, if any."""

    call_id: str
    name: str
    arguments: Mapping[str, Any]
    duration_s: float
    result_chars: int
    error: str | None = None


@dataclass(frozen=True, slots=True)
class AnswerReady:
    """The final answer text is known (sent right before `ask` returns)."""

    text: str


@dataclass(frozen=True, slots=True)
class Handover:
    """A streamed answer broke off and a fallback model wrote the rest: `text[:at]` is what
    had been shown from the model that broke off, the rest came from `model`."""

    at: int
    model: str


@dataclass(frozen=True, slots=True)
class AnswerDraft:
    """The answer as streamed so far (the whole text, not the newest piece).

    It may shrink: back to "" when the reply turns out to call tools (the model was thinking
    aloud, not answering), or when a stream that could not be read is asked for again whole.
    `handover`: where another model took over a stream that broke off, for the reader to see.
    """

    text: str
    handover: Handover | None = None


AgentEvent = ToolStarted | ToolFinished | AnswerDraft | AnswerReady
EventHandler = Callable[[AgentEvent], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Answer:
    """The outcome of one question.

    `cut_short`: the round cap was hit and the model answered from what it had.
    `truncated`: the model ran out of output tokens; `text` holds what arrived.
    `sources`: sandbox paths the model read successfully, in the order first read.
    `quotes`: the answer's blockquotes, each checked against the tool results (QUOTES=verify).
    `pages`: per source, the pages of a PDF or scan this question read or quoted.
    `not_from_documents`: (QUOTES=verify) no document was read for it, nothing it quotes was
    found, and the question was not small talk: the reader is told so.
    `searches_found_nothing`: it searched, and every search it made found no document.
    `fallback_model`: the fallback model (FALLBACK_MODELS) that wrote the answer; None when
    the main model did. `handover`: the answer's stream broke off and a fallback wrote the rest.
    `pictures_as_text`: the question's pictures went to the model as the text OCR read from
    them (IMAGES=off, or the model refused images), not as images: the reader is told so.
    """

    text: str
    sources: tuple[str, ...] = ()
    quotes: tuple[QuoteCheck, ...] = ()
    pages: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    not_from_documents: bool = False
    cut_short: bool = False
    truncated: bool = False
    usage: Usage = field(default_factory=Usage)
    searches_found_nothing: bool = False
    fallback_model: str | None = None
    handover: Handover | None = None
    pictures_as_text: bool = False


@dataclass(frozen=True, slots=True)
class ContextStatus:
    """How full the conversation's context is, for `/status`; `window`: what a request may
    fill, the answer included (less than the model's window under CONTEXT_BUDGET_TOKENS)."""

    conversation: str
    messages: int
    tokens: int
    window: int
    last_usage: Usage | None


class AgentError(Exception):
    """A question could not be answered; the caller shows `kind` to the user as a clear message.

    The string form is for the log and never carries secrets.
    """

    kind = "agent"


class ModelUnavailable(AgentError):
    """The model server could not be reached, timed out, or kept failing (5xx, 429)."""

    kind = "unavailable"


class ModelAuthError(AgentError):
    """The model server refused the key (401/403) or does not know the model (404)."""

    kind = "auth"


class ModelRateLimited(AgentError):
    """The model server kept answering 429 after the retries."""

    kind = "rate_limited"


class ModelStreamCut(ModelUnavailable):
    """A streamed answer stopped in the middle; `partial` is the text that had been shown."""

    kind = "stream_cut"

    def __init__(self, message: str, partial: str = "") -> None:
        super().__init__(message)
        self.partial = partial


class ModelBadReply(AgentError):
    """The model server answered with something that is not a usable completion."""

    kind = "bad_reply"


class ImagesRefused(ModelBadReply):
    """The model answered that it does not take images; `model` names it. The agent sends
    the pictures' OCR text instead and never sends that model images again."""

    def __init__(self, message: str, model: str) -> None:
        super().__init__(message)
        self.model = model


class ContextOverflow(AgentError):
    """The question does not fit the model's window even after trimming harder."""

    kind = "too_long"


async def emit(handler: EventHandler | None, event: AgentEvent) -> None:
    """Call the handler; its failure is logged and never ends the question."""
    if handler is None:
        return
    try:
        await handler(event)
    except Exception:  # progress display is cosmetic: a broken handler must not cost the answer
        logging.getLogger(__name__).exception("event handler failed on %s", type(event).__name__)

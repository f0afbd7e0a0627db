"""The models a call may go to: the main one, then the fallbacks (FALLBACK_MODELS), in order.

A call goes to the first model whose breaker (`bot.agent.breaker`) lets it through, and moves
on only when that model has an outage: unreachable, timing out, 5xx or 429 after the SDK's
retries (`ModelUnavailable`, `ModelRateLimited`). A request the server refused as such (400,
a window overflow, a key or model refused: 401/403/404) is not moved on, since the next model
would most likely refuse it too, and a configuration error would hide behind the fallback.
When every model that is not paused has failed, the paused ones are asked as a last resort,
so a question is only given up when every model has failed it.

A streamed answer that breaks off is not started again elsewhere: what was shown stays, and
the next model is asked to write the rest, which is reported as a `Handover`.

With several workers on one database, each breaker that opens or closes is shared (`share`,
`bot.agent.shared_breakers`): one worker waits out a model that is down, the others learn it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.agent.breaker import Breaker, BreakerState
from bot.agent.client import LazyClient
from bot.agent.observer import NoObserver, Observer
from bot.agent.prompts import CONTINUE_NOTE
from bot.agent.shared_breakers import BreakerBoard
from bot.agent.types import (
    AgentError,
    Handover,
    ModelRateLimited,
    ModelStreamCut,
    ModelUnavailable,
)

if TYPE_CHECKING:
    from bot.agent.llm import ModelClient, TextListener
    from bot.agent.replies import ModelReply
    from bot.storage.breakers import SharedBreakers

logger = logging.getLogger(__name__)

OUTAGES = (ModelUnavailable, ModelRateLimited)
"""The failures a call moves on to the next model for (a cut stream is a `ModelUnavailable`)."""

DraftListener = Callable[[str, Handover | None], Awaitable[None]]
"""Hears the visible answer text of a streamed reply, and where another model took it over."""


@dataclass(frozen=True, slots=True)
class ModelLink:
    """One model of the chain: its name, its server's client and its breaker."""

    name: str
    client: LazyClient
    breaker: Breaker


@dataclass(frozen=True, slots=True)
class Completion:
    """A reply and who wrote it: `fallback` when not the main model; `handover` when the
    reply continues a stream another model broke off (`reply.text` holds both parts)."""

    reply: ModelReply
    model: str
    fallback: bool = False
    handover: Handover | None = None


class ModelChain:
    """Sends each call to the first model that can take it; see the module's docstring."""

    def __init__(
        self,
        links: Sequence[ModelLink],
        *,
        max_output_tokens: int,
        stream: str = "auto",
        observer: Observer | None = None,
    ) -> None:
        if not links:
            msg = "a model chain needs at least the main model"
            raise ValueError(msg)
        self._links = tuple(links)
        self._max_output_tokens = max_output_tokens
        self._stream = stream
        self._observer: Observer = observer if observer is not None else NoObserver()
        self._clients: dict[str, ModelClient] = {}
        self._board = BreakerBoard([link.breaker for link in self._links])

    @property
    def main(self) -> str:
        """The main model's name (MODEL)."""
        return self._links[0].name

    @property
    def has_fallbacks(self) -> bool:
        """Whether any model follows the main one."""
        return len(self._links) > 1

    def states(self) -> tuple[BreakerState, ...]:
        """Each model's breaker, in the chain's order."""
        return tuple(link.breaker.state() for link in self._links)

    async def share(self, shared: SharedBreakers) -> None:
        """Share the breakers with every worker on `shared` (only with fallbacks: without
        them no breaker opens)."""
        if self.has_fallbacks:
            await self._board.join(shared)

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: str | None = None,
        on_draft: DraftListener | None = None,
        *,
        max_tokens: int | None = None,
    ) -> Completion:
        """One completion from the first model that gives one; raises the last `AgentError`.

        `on_draft` hears the streamed text (with the part shown before a handover in front);
        `max_tokens` caps the reply below the usual limit.
        """
        shown = ""  # what a stream that broke off had shown, for the next model to go on from
        failed: tuple[ModelLink, AgentError] | None = None
        for link in self._candidates():
            if failed is not None:
                self._moving_on(*failed, link)
            try:
                reply = await self._ask(
                    link,
                    messages,
                    tools,
                    tool_choice,
                    on_draft=on_draft,
                    shown=shown,
                    max_tokens=max_tokens,
                )
            except OUTAGES as exc:
                if self.has_fallbacks:
                    link.breaker.failed(exc.kind)
                    await self._board.opened(link.breaker, exc.kind)
                if isinstance(exc, ModelStreamCut) and exc.partial.strip():
                    shown += exc.partial
                failed = (link, exc)
                continue
            except AgentError as exc:
                if shown:  # the reader has part of an answer: it stays, marked as cut
                    raise ModelStreamCut(str(exc), shown) from exc
                raise
            await self._answered(link)
            fallback = link is not self._links[0]
            if not shown:
                return Completion(reply, link.name, fallback=fallback)
            handover = Handover(len(shown), link.name)
            whole = dataclasses.replace(reply, text=shown + reply.text, tool_calls=())
            return Completion(whole, link.name, fallback=fallback, handover=handover)
        assert failed is not None  # the chain has a model, and each one raised
        if shown:  # the reader keeps what came, marked as cut
            raise ModelStreamCut(str(failed[1]), shown) from failed[1]
        raise failed[1]

    def _candidates(self) -> Iterator[ModelLink]:
        """The models a call may go to, in order: those the breakers let through, then, as
        a last resort, those they hold back. Each breaker is asked only when its turn comes,
        so a model past its cool-down is not tried while an earlier one answers."""
        paused: list[ModelLink] = []
        for link in self._links:
            if link.breaker.allows():
                yield link
            else:
                logger.debug("model %s is passed over until its cool-down ends", link.name)
                paused.append(link)
        yield from paused

    async def _ask(
        self,
        link: ModelLink,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: str | None,
        *,
        on_draft: DraftListener | None,
        shown: str,
        max_tokens: int | None = None,
    ) -> ModelReply:
        """One call to `link`; with `shown`, a request to go on from that text."""
        client = self._client(link)
        if not shown:
            listener: TextListener | None = None
            if on_draft is not None:
                draft = on_draft

                async def plain(text: str) -> None:
                    await draft(text, None)

                listener = plain
            return await client.complete(
                messages, tools, tool_choice, listener, max_tokens=max_tokens
            )
        handover = Handover(len(shown), link.name)
        going_on = [
            *messages,
            {"role": "assistant", "content": shown},
            {"role": "system", "content": CONTINUE_NOTE},
        ]
        continued: TextListener | None = None
        if on_draft is not None:
            draft = on_draft

            async def after_shown(text: str) -> None:
                await draft(shown + text, handover)

            continued = after_shown
        return await client.complete(going_on, tools, "none" if tools else None, continued)

    def _client(self, link: ModelLink) -> ModelClient:
        """The model client of `link`, made at its first call (it imports the SDK)."""
        made = self._clients.get(link.name)
        if made is None:
            from bot.agent.llm import ModelClient  # noqa: PLC0415 - imports the SDK

            made = ModelClient(
                link.client.get(), link.name, self._max_output_tokens, stream=self._stream
            )
            self._clients[link.name] = made
        return made

    def _moving_on(self, link: ModelLink, error: AgentError, following: ModelLink) -> None:
        logger.warning(
            "model %s failed (%s: %s); asking %s instead",
            link.name,
            error.kind,
            error,
            following.name,
        )
        self._observer.model_called(ok=False, prompt_tokens=0, completion_tokens=0)
        self._observer.model_failed_over(link.name, following.name)

    async def _answered(self, link: ModelLink) -> None:
        if not link.breaker.state().failures:
            return
        logger.info("model %s answers again", link.name)
        link.breaker.succeeded()
        await self._board.closed(link.breaker)

"""The agent: a question in, rounds of tool calls, an answer out.

Each round sends the trimmed history and the tool specs, runs the calls the reply asks for and
appends the assistant message with its results to the turn. The loop acts on the presence of
tool calls, not on `finish_reason`. After `max_rounds` calls with tools, one last call asks for
an answer from what was found; it still carries the tool specs (some servers refuse a history of
tool calls without them) but with `tool_choice: "none"`, so a question costs at most
`max_rounds + 1` calls.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.agent.breaker import Breaker, BreakerState
from bot.agent.calls import RepeatGuard, run_calls
from bot.agent.chain import DraftListener, ModelChain, ModelLink
from bot.agent.client import LazyClient
from bot.agent.config import AgentConfig
from bot.agent.context import Fitted, fit, repair
from bot.agent.locks import KeyedLocks
from bot.agent.observer import NoObserver, Observer
from bot.agent.picture_text import read_pictures
from bot.agent.pictures import Picture
from bot.agent.prompts import EMPTY_REPLY_NOTE, ROUND_LIMIT_NOTE, no_answer_text
from bot.agent.quotes.evidence import pages_read, read_results
from bot.agent.quotes.verify import QuoteCheck, check_quotes
from bot.agent.replies import ModelReply
from bot.agent.shown_pages import PAGE_PICTURES, PAGE_SHARE, page_message, page_note
from bot.agent.small_talk import is_small_talk
from bot.agent.tokens import TokenCounter
from bot.agent.types import (
    AgentError,
    Answer,
    AnswerDraft,
    AnswerReady,
    ContextOverflow,
    ContextStatus,
    EventHandler,
    Handover,
    ImagesRefused,
    ModelBadReply,
    ToolRunner,
    emit,
    page_drawer,
)
from bot.agent.vision import (
    DESCRIPTION_TOKENS,
    describe_request,
    first_line,
    image_question,
    stored_question,
    text_question,
)
from bot.process.logs.context import question_context
from bot.storage.history import History, Usage
from tools.jail.scope import Scope
from tools.results import PagePicture, ToolResult

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from bot.storage.breakers import SharedBreakers

logger = logging.getLogger(__name__)

Message = dict[str, Any]

# On a context-length error the retry aims at this share of what was sent, and later requests
# stay below this share of it: the server's real window is evidently smaller than configured.
_MAX_PICTURES = 50
"""A bound on pictures per question whatever the caller sends (IMAGES_PER_QUESTION is the
front door's, lower)."""
_HARDER = 0.6
_CEILING = 0.9


@dataclass
class _Progress:
    """The running state of one question."""

    current: list[Message]
    guard: RepeatGuard = field(default_factory=RepeatGuard)
    rounds: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    estimated: bool = False
    sources: list[str] = field(default_factory=list)
    search_hits: list[int] = field(default_factory=list)
    results: dict[str, ToolResult] = field(default_factory=dict)
    nudged: bool = False
    on_event: EventHandler | None = None
    scope: Scope | None = None
    fallback_model: str | None = None
    handover: Handover | None = None
    chain: ModelChain | None = None
    """The models this question goes to: the vision chain while it carries images."""
    text: str = ""
    """The user's own words (the caption of pictures; may be empty)."""
    pictures: tuple[Picture, ...] = ()
    readings: list[str] | None = None
    """The pictures' OCR text, once they were sent as text instead of images."""
    image_tokens: int = 0
    pages: bool = True
    """Whether read_file may still show pages as pictures (not after a refusal of them)."""
    shown: dict[int, tuple[str, int]] = field(default_factory=dict)
    """The pages shown as pictures: index in `current` -> (path, page)."""
    page_tokens: int = 0

    @property
    def draft_listener(self) -> DraftListener | None:
        """Streams the answer to the caller as `AnswerDraft` events, when someone listens."""
        handler = self.on_event
        if handler is None:
            return None

        async def on_text(text: str, handover: Handover | None) -> None:
            await emit(handler, AnswerDraft(text, handover))

        return on_text

    def usage(self, started: float) -> Usage:
        return Usage(
            rounds=self.rounds,
            model_calls=self.model_calls,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            elapsed_s=time.monotonic() - started,
            cached_prompt_tokens=self.cached_prompt_tokens,
            estimated=self.estimated,
            image_tokens=self.image_tokens,
        )


class Agent:
    """Answers questions per conversation; one question at a time in each conversation.

    `fallbacks` are the models asked, in order, when the main one (`client`) is down, each by
    name with its own client; `vision_client` is VISION_MODEL's when it runs on a server of its
    own (None: the main client); `clock` times their breakers' cool-downs (`bot.agent.chain`).
    """

    def __init__(
        self,
        config: AgentConfig,
        client: AsyncOpenAI | LazyClient,
        tools: ToolRunner,
        history: History,
        *,
        locks: KeyedLocks | None = None,
        observer: Observer | None = None,
        fallbacks: Mapping[str, LazyClient] | None = None,
        vision_client: LazyClient | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._observer: Observer = observer if observer is not None else NoObserver()
        self._client = client if isinstance(client, LazyClient) else LazyClient.of(client)
        models = {config.model: self._client, **(fallbacks or {})}
        cooldown = config.fallback_cooldown_s
        links = [ModelLink(name, c, Breaker(name, cooldown, clock)) for name, c in models.items()]
        self._chain = ModelChain(
            links,
            max_output_tokens=config.max_output_tokens,
            stream=config.stream,
            observer=self._observer,
        )
        self._vision = config.vision_model or config.model
        self._vision_chain = self._chain
        if self._vision != config.model:  # on its own server or the main one, then the fallbacks
            seeing = ModelLink(
                self._vision, vision_client or self._client, Breaker(self._vision, cooldown, clock)
            )
            self._vision_chain = ModelChain(
                [seeing, *(link for link in links[1:] if link.name != self._vision)],
                max_output_tokens=config.max_output_tokens,
                stream=config.stream,
                observer=self._observer,
            )
        self._blind: set[str] = set()
        """Models that answered they take no images: sent the pictures' text from then on."""
        self._tools = tools
        self._history = history
        self._counter = TokenCounter.for_model(config.model)
        self._locks = locks if locks is not None else KeyedLocks()
        self._ceiling: int | None = None
        self._specs: list[dict[str, Any]] | None = None
        self._picture_tools = page_drawer(tools)
        self._picture_specs: list[dict[str, Any]] | None = None

    @property
    def _tool_specs(self) -> list[dict[str, Any]]:
        """The toolbox's specs, taken once and shared by every request, which only read them.

        The toolbox hands out a fresh copy each time it is asked; taken per round, every
        question in flight held its own copy while it waited for the model.
        """
        if self._specs is None:
            self._specs = self._tools.specs
        return self._specs

    def _specs_for(self, progress: _Progress) -> tuple[list[dict[str, Any]], bool]:
        """The specs for the question's next request, and whether they let read_file show
        pages as pictures: only when the request goes to the vision model, it has not refused
        pictures, IMAGES=auto, and the toolbox can draw pages."""
        offers = (
            self._picture_tools is not None
            and progress.pages
            and self._config.images == "auto"
            and self._vision not in self._blind
            and (progress.chain or self._chain) is self._vision_chain
        )
        if not offers or self._picture_tools is None:
            return self._tool_specs, False
        if self._picture_specs is None:
            self._picture_specs = self._picture_tools.picture_specs
        return self._picture_specs, True

    async def share_breakers(self, shared: SharedBreakers) -> None:
        """Learn of a model that is down from every worker on `shared`, and tell them."""
        await self._chain.share(shared)

    def model_states(self) -> tuple[BreakerState, ...]:
        """Each model of the chain (the main one first) and whether it is being passed over;
        empty without fallbacks, where there is nothing to pass over to."""
        return self._chain.states() if self._chain.has_fallbacks else ()

    @property
    def counter(self) -> TokenCounter:
        """The token counter (exact or estimated, with its calibration)."""
        return self._counter

    async def ask(
        self,
        conversation: str,
        question: str,
        on_event: EventHandler | None = None,
        *,
        scope: Scope | None = None,
        pictures: Sequence[Picture] = (),
    ) -> Answer:
        """Answer `question` in `conversation`; raises an `AgentError` subclass on failure.

        Every tool call runs within `scope` (None: the whole documents folder). A second
        question in the same conversation waits until the first has ended. `pictures`
        (prepared by `bot.agent.pictures.prepare_picture`) go with the question, which may
        then be empty.
        """
        text = question.strip()
        if not text and not pictures:
            msg = "the question is empty"
            raise ValueError(msg)
        async with self._locks.hold(conversation):
            answer = await self._ask(
                conversation, text, on_event, scope, tuple(pictures[:_MAX_PICTURES])
            )
        await emit(on_event, AnswerReady(answer.text))
        return answer

    async def reset(self, conversation: str) -> None:
        """Start a new conversation under this key (after a running question ends)."""
        async with self._locks.hold(conversation):
            await self._history.reset(conversation)

    async def has_past(self, conversation: str) -> bool:
        """Whether the conversation's next question would carry earlier turns with it."""
        return bool(await self._history.load_turns(conversation, 1))

    async def status(self, conversation: str) -> ContextStatus:
        """How much of the window the conversation would use for its next question."""
        past = await self._load(conversation)
        specs = self._tool_specs
        try:
            tokens = self._fit(past, [], specs, self._budget()).tokens
        except ContextOverflow:  # even the system prompt and tools overflow: report the raw size
            system = {"role": "system", "content": self._config.system_prompt}
            tokens = self._counter.messages([system]) + self._counter.tools(specs)
        return ContextStatus(
            conversation=conversation,
            messages=sum(len(turn) for turn in past),
            tokens=tokens,
            window=self._config.bounded_window,
            last_usage=await self._history.last_usage(conversation),
        )

    async def _load(self, conversation: str) -> list[list[Message]]:
        turns = await self._history.load_turns(conversation, self._config.history_turns)
        return [repaired for turn in turns if (repaired := repair(turn))]

    async def _ask(
        self,
        conversation: str,
        text: str,
        on_event: EventHandler | None,
        scope: Scope | None,
        pictures: tuple[Picture, ...] = (),
    ) -> Answer:
        started = time.monotonic()
        past = await self._load(conversation)
        progress = _Progress(
            current=[{"role": "user", "content": text}],
            on_event=on_event,
            scope=scope,
            chain=self._chain,
            text=text,
            pictures=pictures,
        )
        if pictures:
            if self._config.images == "off" or self._vision in self._blind:
                await self._as_text(progress)
            else:
                progress.current[0] = image_question(text, pictures, self._config.image_detail)
                progress.chain = self._vision_chain
        # Never the pictures themselves: their description replaces this once it is known.
        stored = {"role": "user", "content": stored_question(text, len(pictures))}
        turn = await self._history.begin_turn(
            conversation, stored if pictures else progress.current[0]
        )
        with question_context(conversation, turn):
            return await self._answer(
                conversation, turn, past, progress, on_event=on_event, started=started
            )

    async def _answer(
        self,
        conversation: str,
        turn: int,
        past: list[list[Message]],
        progress: _Progress,
        *,
        on_event: EventHandler | None,
        started: float,
    ) -> Answer:
        try:
            answer = await self._run_seeing(turn, past, progress, on_event, started)
            if progress.pictures:
                answer = await self._remember_pictures(turn, progress, answer, started)
        except BaseException as exc:
            self._observer.question_failed(_failure_kind(exc))
            # The turn is closed as failed even when the task is being cancelled; a failed
            # turn is never sent again, so a call left without its result cannot leak.
            try:
                await asyncio.shield(self._history.finish_turn(turn, done=False))
            except Exception:  # the store is gone (shutdown): the turn stays open and is
                # marked interrupted on the next start, so it is never sent either way
                logger.exception("could not mark the failed turn in %s", conversation)
            # The front door tells the user and logs the failure where it matters to it; a
            # cancellation is a stop (Ctrl-C, shutdown), not a failure.
            logger.info(
                "question in %s %s after %d model call(s): %s: %s",
                conversation,
                "stopped" if isinstance(exc, asyncio.CancelledError) else "failed",
                progress.model_calls,
                type(exc).__name__,
                exc,
            )
            raise
        await self._history.finish_turn(turn, done=True, usage=answer.usage)
        self._observer.question_answered(answer.usage.elapsed_s)
        logger.info(
            "answered in %s: %d round(s), %d call(s), %s%d+%d tokens, %.2fs%s%s",
            conversation,
            answer.usage.rounds,
            answer.usage.model_calls,
            "~" if answer.usage.estimated else "",
            answer.usage.prompt_tokens,
            answer.usage.completion_tokens,
            answer.usage.elapsed_s,
            ", cut short" if answer.cut_short else "",
            ", truncated" if answer.truncated else "",
        )
        return answer

    async def _run_seeing(
        self,
        turn: int,
        past: list[list[Message]],
        progress: _Progress,
        on_event: EventHandler | None,
        started: float,
    ) -> Answer:
        """`_run`, going on with the pictures' text when the model refuses images (and with
        the text alone of pages read_file showed as pictures)."""
        try:
            return await self._run(turn, past, progress, on_event, started)
        except ImagesRefused as exc:
            sent = bool(progress.pictures) and progress.readings is None
            if not sent and not (progress.shown and progress.pages):
                raise
            if exc.model not in self._blind:
                self._blind.add(exc.model)
                logger.warning(
                    "model %s does not take images (%s); pictures go to it as the text OCR "
                    "reads from them until the bot restarts. Set VISION_MODEL to a model that "
                    "takes images, or IMAGES=off",
                    exc.model,
                    exc,
                )
            if sent:
                await self._as_text(progress)
            self._hide_pages(progress)
            return await self._run(turn, past, progress, on_event, started)

    def _show_pages(self, drawn: Sequence[PagePicture], progress: _Progress) -> list[Message]:
        """Show the pages drawn after the round's tool results while they fit their share of
        the window; what the history keeps of them, a line each."""
        kept: list[Message] = []
        room = int(self._budget() * PAGE_SHARE) - progress.page_tokens
        for picture in drawn:
            message = page_message(picture, self._config.image_detail)
            cost = self._counter.message(message)
            if cost > room:
                message = page_note(picture.path, picture.page, "no_room")
                kept.append(message)
            else:
                room -= cost
                progress.page_tokens += cost
                progress.shown[len(progress.current)] = (picture.path, picture.page)
                kept.append(page_note(picture.path, picture.page))
            progress.current.append(message)
        return kept

    @staticmethod
    def _hide_pages(progress: _Progress) -> None:
        """No more pages as pictures in this question; those shown become a line each."""
        progress.pages = False
        for index, (path, page) in progress.shown.items():
            progress.current[index] = page_note(path, page, "refused")

    async def _as_text(self, progress: _Progress) -> None:
        """Send the question's pictures as the text OCR reads from them, to the main model."""
        progress.readings = await read_pictures(progress.pictures)
        progress.current[0] = {
            "role": "user",
            "content": text_question(progress.text, progress.readings),
        }
        progress.chain = self._chain

    async def _remember_pictures(
        self, turn: int, progress: _Progress, answer: Answer, started: float
    ) -> Answer:
        """Store the question with what its pictures show in place of the pictures, and
        count the description's call in the answer's usage."""
        if progress.readings is not None:
            description = "; ".join(filter(None, (first_line(r) for r in progress.readings)))
        else:
            description = await self._describe(progress)
        question = stored_question(progress.text, len(progress.pictures), description)
        await self._history.rewrite_question(turn, {"role": "user", "content": question})
        return dataclasses.replace(
            answer,
            usage=progress.usage(started),
            pictures_as_text=progress.readings is not None,
        )

    async def _describe(self, progress: _Progress) -> str:
        """One short request: what the pictures show, in the model's own words ("" when it
        cannot be had; the history then keeps only that there was a picture)."""
        request = [describe_request(progress.text, progress.pictures, self._config.image_detail)]
        chain = progress.chain or self._vision_chain
        progress.model_calls += 1
        try:
            completion = await chain.complete(request, None, max_tokens=DESCRIPTION_TOKENS)
        except AgentError as exc:
            self._observer.model_called(ok=False, prompt_tokens=0, completion_tokens=0)
            logger.info("the pictures could not be described for the history: %s", exc)
            return ""
        reply = completion.reply
        images = self._counter.pictures(request)
        prompt_tokens = reply.prompt_tokens or self._counter.messages(request)
        completion_tokens = reply.completion_tokens or self._counter.text(reply.text)
        self._observer.model_called(
            ok=True, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
        progress.prompt_tokens += prompt_tokens
        progress.completion_tokens += completion_tokens
        progress.image_tokens += images
        progress.estimated = progress.estimated or not reply.prompt_tokens
        return first_line(reply.text, limit=300)

    async def _run(
        self,
        turn: int,
        past: list[list[Message]],
        progress: _Progress,
        on_event: EventHandler | None,
        started: float,
    ) -> Answer:
        limit = self._config.max_rounds
        while True:
            tools_allowed = progress.rounds < limit and not progress.nudged
            specs, pages = self._specs_for(progress)
            if tools_allowed:
                reply = await self._call(past, progress.current, specs, progress)
                progress.rounds += 1
            else:
                # The tools stay attached (the history holds calls) but may not be used; a
                # call the model makes anyway is ignored.
                note: Message = (
                    {"role": "system", "content": EMPTY_REPLY_NOTE}
                    if progress.nudged
                    else {"role": "system", "content": ROUND_LIMIT_NOTE}
                )
                reply = await self._call(past, [*progress.current, note], specs, progress, "none")
            if (
                not reply.text
                and not (tools_allowed and reply.tool_calls)
                and reply.finish_reason != "length"
                and not progress.nudged
                and progress.model_calls < limit + 1
            ):
                # Local models often end with an empty message after reading: ask once more.
                logger.info("the model's answer was empty; asking it once more to answer")
                progress.nudged = True
                continue
            if tools_allowed and reply.tool_calls:
                outcomes = await run_calls(
                    self._tools,
                    reply.tool_calls,
                    progress.guard,
                    on_event,
                    self._observer,
                    scope=progress.scope,
                    specs=specs,
                    pictures_left=PAGE_PICTURES - len(progress.shown) if pages else None,
                )
                new = [reply.assistant_message(), *(o.tool_message() for o in outcomes)]
                # A tool message carries text only: the pages drawn follow as messages of
                # their own, which the history keeps as a line each.
                drawn = [p for o in outcomes if pages and (p := o.result.picture) is not None]
                progress.current.extend(new)
                await self._history.append(turn, [*new, *self._show_pages(drawn, progress)])
                for outcome in outcomes:
                    progress.results[outcome.call.id] = outcome.result
                    source = outcome.result.source
                    if source and source not in progress.sources:
                        progress.sources.append(source)
                    if outcome.result.hits is not None:
                        progress.search_hits.append(outcome.result.hits)
                continue
            cut = progress.rounds >= limit and not tools_allowed
            return await self._finish(turn, past, reply, progress, started, cut=cut)

    async def _finish(
        self,
        turn: int,
        past: list[list[Message]],
        reply: ModelReply,
        progress: _Progress,
        started: float,
        *,
        cut: bool,
    ) -> Answer:
        truncated = reply.finish_reason == "length"
        text = reply.text
        if not text and truncated:
            msg = "the model's answer was cut off before any text"
            raise ModelBadReply(msg)
        if not text:
            logger.warning("the model gave no answer twice; replying that none was produced")
            text = no_answer_text(progress.sources)
        await self._history.append(turn, [{"role": "assistant", "content": text}])
        read = read_results(progress.current)  # once: for the pages and for the quotes
        quotes: tuple[QuoteCheck, ...] = ()
        if self._config.verify_quotes:
            # Earlier turns still in the history count: a follow-up may quote what was read then.
            quotes = tuple(check_quotes(text, [m for t in past for m in t], read=read))
        question = progress.text or _text_of(progress.current[0].get("content"))
        return Answer(
            text=text,
            sources=tuple(progress.sources),
            quotes=quotes,
            pages=pages_read(read),
            not_from_documents=self._config.verify_quotes
            and not progress.sources
            and not any(q.found for q in quotes)
            and not is_small_talk(question),
            cut_short=cut,
            truncated=truncated,
            usage=progress.usage(started),
            searches_found_nothing=bool(progress.search_hits) and not any(progress.search_hits),
            fallback_model=progress.fallback_model,
            handover=progress.handover,
            pictures_as_text=progress.readings is not None,
        )

    def _budget(self) -> int:
        """The configured budget, or less once the server has refused a smaller request."""
        budget = self._config.prompt_budget
        return budget if self._ceiling is None else min(budget, self._ceiling)

    def _learn_ceiling(self, refused_tokens: int) -> None:
        ceiling = int(refused_tokens * _CEILING)
        if self._ceiling is None or ceiling < self._ceiling:
            self._ceiling = ceiling

    def _fit(
        self,
        past: list[list[Message]],
        current: list[Message],
        specs: list[dict[str, Any]],
        budget: int,
        results: Mapping[str, ToolResult] | None = None,
    ) -> Fitted:
        return fit(
            self._config.system_prompt,
            past,
            current,
            budget=budget,
            tools_tokens=self._counter.tools(specs),
            counter=self._counter,
            results=results,
            headroom=self._config.trim_headroom,
        )

    async def _call(
        self,
        past: list[list[Message]],
        current: list[Message],
        specs: list[dict[str, Any]],
        progress: _Progress,
        tool_choice: str | None = None,
    ) -> ModelReply:
        """One model call that fits the window; on a context-length error, trim harder once."""
        budget = self._budget()
        fitted = self._fit(past, current, specs, budget, progress.results)
        for attempt in (1, 2):
            progress.model_calls += 1
            try:
                completion = await (progress.chain or self._chain).complete(
                    fitted.messages, specs or None, tool_choice, progress.draft_listener
                )
            except AgentError as exc:
                self._observer.model_called(ok=False, prompt_tokens=0, completion_tokens=0)
                if not isinstance(exc, ContextOverflow):
                    raise
                self._learn_ceiling(fitted.tokens)
                if attempt == 2:
                    msg = f"the conversation does not fit the model's window even trimmed: {exc}"
                    raise ContextOverflow(msg) from exc
                logger.warning(
                    "the server refused a request of ~%d tokens as too long (%s); trimming "
                    "harder. If this repeats, CONTEXT_WINDOW is larger than the server's window",
                    fitted.tokens,
                    exc,
                )
                harder = int(min(budget, fitted.tokens) * _HARDER)
                fitted = self._fit(past, current, specs, harder, progress.results)
                continue
            reply = completion.reply
            progress.fallback_model = completion.model if completion.fallback else None
            progress.handover = completion.handover
            self._counter.observe(fitted.raw_tokens, reply.prompt_tokens)
            prompt_tokens = reply.prompt_tokens or fitted.tokens
            completion_tokens = reply.completion_tokens
            if not completion_tokens and (reply.text or reply.tool_calls):
                completion_tokens = None  # a reply with words cost some: 0 means "not told"
            if completion_tokens is None or not reply.prompt_tokens:
                progress.estimated = True
            if completion_tokens is None:  # what the server wrote: the text and the calls
                completion_tokens = self._counter.message(reply.assistant_message())
            self._observer.model_called(
                ok=True, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
            )
            progress.prompt_tokens += prompt_tokens
            progress.completion_tokens += completion_tokens
            progress.image_tokens += self._counter.pictures(fitted.messages)
            progress.cached_prompt_tokens += min(reply.cached_tokens, prompt_tokens)
            return reply
        raise AssertionError  # pragma: no cover - the loop always returns or raises


def _text_of(content: object) -> str:
    """The text of a user turn: a string, or the text parts beside its pictures."""
    if isinstance(content, list):
        return " ".join(str(p.get("text") or "") for p in content if isinstance(p, Mapping))
    return str(content or "")


def _failure_kind(exc: BaseException) -> str:
    """How a question that raised `exc` is counted: the error's kind, from a fixed set."""
    if isinstance(exc, AgentError):
        return exc.kind
    if isinstance(exc, asyncio.CancelledError):
        return "cancelled"
    return "unexpected"

"""The bot's Prometheus metrics, kept in a registry of its own (never the library's global one).

One `Metrics` is made by the composition root and handed to whoever reports: the agent (as its
`Observer`), the Telegram wing (refused questions, Bot API errors). What changes only at scrape
time (documents indexed, questions running and waiting) is read then, from the functions given
to `watch`. Every label value comes from a fixed set; anything else is reported as `other`, so
no user text, id or secret can become a label, whatever a caller passes.

The `_created` series prometheus-client adds beside every counter and histogram (a start time
per label set, doubling the page) are left out of the page. The library's own switch for that
is process-wide state; leaving them out here keeps it to this registry.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from bot.monitoring.breakers import BreakerGauges, ModelStates
from bot.monitoring.gauges import LiveGauges, QueueLoad
from bot.monitoring.reranks import RerankCounts
from bot.storage.usage import Tokens
from tools import IndexStatus
from tools.vectors.state import VectorStatus

OTHER = "other"
"""The label value for anything outside a label's fixed set."""
ERROR_KINDS = frozenset(
    {
        "agent",
        "unavailable",
        "auth",
        "rate_limited",
        "stream_cut",
        "bad_reply",
        "too_long",
        "unexpected",
        "cancelled",
    }
)
"""Why a question failed: the agent's error kinds, an unexpected bug, a stop."""
REFUSALS = frozenset({"rate_limited", "busy", "stopping", "budget"})
"""Why a question was turned away before the agent saw it."""
TELEGRAM_ERRORS = frozenset(
    {
        "bad_request",
        "forbidden",
        "unauthorized",
        "not_found",
        "conflict",
        "entity_too_large",
        "retry_after",
        "migrate_to_chat",
        "network",
        "server",
        "decode",
    }
)
"""Bot API failures, named after aiogram's exception classes."""
FEEDBACK_VOTES = frozenset({"up", "down"})
FEEDBACK_REASONS = frozenset({"none", "not_in_documents", "wrong_answer", "wrong_file", "comment"})
"""What a tap under an answer said: `none` for the vote itself, else what a 👎 said was wrong
(a reason button, or a comment in words)."""
USAGE_KINDS = frozenset({"answer", "transcription", "embeddings"})
"""What the model's tokens were spent on (bot.storage.usage's kinds)."""
_API_METHOD = re.compile(r"[A-Za-z]{1,64}")
_ANSWER_BUCKETS = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)
_TOOL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class Metrics:
    """Counters and histograms of one bot process; `render` gives the Prometheus text.

    `tools` names the tools the toolbox offers (the only tool labels besides `unknown`);
    `models` the models the settings name, MODEL and FALLBACK_MODELS among them (the only model
    labels besides `other`).
    """

    def __init__(
        self, tools: Iterable[str] = (), models: Iterable[str] = (), sources: Iterable[str] = ()
    ) -> None:
        self.registry = CollectorRegistry()
        self._sources = frozenset(sources)
        self._page = _WithoutCreated(self.registry)
        self._tools = frozenset(tools) | {"unknown"}
        self._models = frozenset(models)
        self._questions = Counter(
            "docs_bot_questions",
            "Questions by outcome (answered, failed, refused) and kind (the error kind or the "
            "reason for a refusal; none for answered ones).",
            ["outcome", "kind"],
            registry=self.registry,
        )
        self._answer_seconds = Histogram(
            "docs_bot_answer_seconds",
            "Time from a question reaching the agent to its answer being ready.",
            buckets=_ANSWER_BUCKETS,
            registry=self.registry,
        )
        self._model_calls = Counter(
            "docs_bot_model_calls",
            "Requests to the model server, by outcome (ok, failed).",
            ["outcome"],
            registry=self.registry,
        )
        self._tokens = Counter(
            "docs_bot_model_tokens",
            "Tokens of model calls by direction (prompt, completion), as the server reports "
            "them or as estimated where it does not.",
            ["direction"],
            registry=self.registry,
        )
        self._tool_calls = Counter(
            "docs_bot_tool_calls",
            "Tool calls by tool and outcome (ok, failed: the model got an error result).",
            ["tool", "outcome"],
            registry=self.registry,
        )
        self._tool_seconds = Histogram(
            "docs_bot_tool_seconds",
            "Time one tool call took, by tool.",
            ["tool"],
            buckets=_TOOL_BUCKETS,
            registry=self.registry,
        )
        self._telegram_errors = Counter(
            "docs_bot_telegram_errors",
            "Bot API requests that failed, by API method and kind of error.",
            ["method", "kind"],
            registry=self.registry,
        )
        self._feedback = Counter(
            "docs_bot_feedback",
            "Taps under answers by vote (up, down) and reason: none for a 👍 or 👎 itself, "
            "not_in_documents, wrong_answer, wrong_file or comment for what a 👎 then said was "
            "wrong; so the votes are the reason=none series.",
            ["vote", "reason"],
            registry=self.registry,
        )
        self._failovers = Counter(
            "docs_bot_model_failovers",
            "Model calls moved on to the next model of the chain (fallback) after one (model) "
            "failed with an outage: unreachable, timing out, 5xx, 429 after retries, a cut "
            "stream.",
            ["model", "fallback"],
            registry=self.registry,
        )
        self._usage_tokens = Counter(
            "docs_bot_usage_tokens",
            "Tokens recorded for budgets and /usage, by model, kind (answer, transcription, "
            "embeddings) and type (prompt, cached: the part of prompt the server had cached, "
            "completion); each question once.",
            ["model", "kind", "type"],
            registry=self.registry,
        )
        self._usage_cost = Counter(
            "docs_bot_usage_cost",
            "What the recorded tokens cost, in LIMITS_FILE's currency, by model and kind; only "
            "models with a price there.",
            ["model", "kind"],
            registry=self.registry,
        )
        self._source_success = Gauge(
            "docs_bot_source_last_success_timestamp_seconds",
            "When each source's last pass left its folder matching it (Unix time), by source "
            "name (SOURCES_FILE).",
            ["source"],
            registry=self.registry,
        )
        self._source_items = Gauge(
            "docs_bot_source_items",
            "Files each source's mirror holds in its folder after its last complete pass.",
            ["source"],
            registry=self.registry,
        )
        self._source_errors = Counter(
            "docs_bot_source_errors",
            "Source passes that failed or left something undone (a listing refused, a fetch "
            "failed, an empty listing where there were files), by source name.",
            ["source"],
            registry=self.registry,
        )
        self._prepare()

    def _prepare(self) -> None:
        """Series that exist from the start, so a rate over them begins at zero."""
        for source in self._sources:
            self._source_errors.labels(source)
        self._questions.labels("answered", "none")
        for vote in FEEDBACK_VOTES:
            self._feedback.labels(vote, "none")
        for direction in ("prompt", "completion"):
            self._tokens.labels(direction)
        for outcome in ("ok", "failed"):
            self._model_calls.labels(outcome)
            for tool in self._tools:
                self._tool_calls.labels(tool, outcome)

    def watch(
        self,
        index: Callable[[], IndexStatus],
        queue: QueueLoad,
        vectors: Callable[[], VectorStatus] | None = None,
    ) -> None:
        """Read the search index's status, the questions' queue and (with embeddings) the
        vectors' build at every scrape."""
        self.registry.register(LiveGauges(index, queue, vectors))

    def watch_reranks(self, counts: Mapping[str, int]) -> None:
        """Read the reranker's outcomes at every scrape (only when RERANK_URL is set)."""
        self.registry.register(RerankCounts(counts))

    def watch_models(self, states: ModelStates) -> None:
        """Read the models' breakers at every scrape (a gauge per model with fallbacks)."""
        self.registry.register(BreakerGauges(states))

    def render(self) -> bytes:
        """Every metric in the Prometheus text format."""
        return generate_latest(self._page)

    # --- the agent's Observer --------------------------------------------------------------

    def question_answered(self, seconds: float) -> None:
        """A question was answered after `seconds`."""
        self._questions.labels("answered", "none").inc()
        self._answer_seconds.observe(seconds)

    def question_failed(self, kind: str) -> None:
        """A question ended without an answer, for a reason of `ERROR_KINDS`."""
        self._questions.labels("failed", _known(kind, ERROR_KINDS)).inc()

    def model_called(self, *, ok: bool, prompt_tokens: int, completion_tokens: int) -> None:
        """One request to the model server ended."""
        self._model_calls.labels("ok" if ok else "failed").inc()
        self._tokens.labels("prompt").inc(max(prompt_tokens, 0))
        self._tokens.labels("completion").inc(max(completion_tokens, 0))

    def tool_called(self, tool: str, *, ok: bool, seconds: float) -> None:
        """One tool call ended after `seconds`."""
        name = _known(tool, self._tools)
        self._tool_calls.labels(name, "ok" if ok else "failed").inc()
        self._tool_seconds.labels(name).observe(seconds)

    def model_failed_over(self, model: str, fallback: str) -> None:
        """A call `model` failed with an outage went on to `fallback`."""
        self._failovers.labels(_known(model, self._models), _known(fallback, self._models)).inc()

    # --- the front door's reports ----------------------------------------------------------

    def question_refused(self, reason: str) -> None:
        """A question was turned away before the agent saw it, for a reason of `REFUSALS`."""
        self._questions.labels("refused", _known(reason, REFUSALS)).inc()

    def telegram_error(self, method: str, kind: str) -> None:
        """A Bot API request failed: `method` as the API names it, `kind` of `TELEGRAM_ERRORS`."""
        shown = method if _API_METHOD.fullmatch(method) else OTHER
        self._telegram_errors.labels(shown, _known(kind, TELEGRAM_ERRORS)).inc()

    def model_used(self, model: str, kind: str, tokens: Tokens, cost: float | None) -> None:
        """Tokens recorded for one use (budgets' `UsageObserver`), and their cost if priced."""
        shown = _known(model, self._models)
        known_kind = _known(kind, USAGE_KINDS)
        self._usage_tokens.labels(shown, known_kind, "prompt").inc(max(tokens.prompt, 0))
        self._usage_tokens.labels(shown, known_kind, "cached").inc(max(tokens.cached, 0))
        self._usage_tokens.labels(shown, known_kind, "completion").inc(max(tokens.completion, 0))
        if cost is not None:
            self._usage_cost.labels(shown, known_kind).inc(max(cost, 0.0))

    def feedback_given(self, vote: str, reason: str = "none") -> None:
        """A 👍 or 👎 under an answer (`reason` none), or what a 👎 said was wrong."""
        self._feedback.labels(_known(vote, FEEDBACK_VOTES), _known(reason, FEEDBACK_REASONS)).inc()

    # --- the sources' SourceObserver ---------------------------------------------------------

    def source_synced(self, name: str, *, items: int, at: float) -> None:
        """A source's pass left its folder matching it, holding `items` files."""
        shown = _known(name, self._sources)
        self._source_success.labels(shown).set(at)
        self._source_items.labels(shown).set(items)

    def source_failed(self, name: str) -> None:
        """A source's pass failed or left something undone."""
        self._source_errors.labels(_known(name, self._sources)).inc()


class _WithoutCreated(Collector):
    """A registry's metrics without their `_created` samples."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self._registry = registry

    def collect(self) -> Iterator[Metric]:
        for family in self._registry.collect():
            kept = Metric(family.name, family.documentation, family.type, family.unit)
            kept.samples = [s for s in family.samples if not s.name.endswith("_created")]
            yield kept


def _known(value: str, allowed: frozenset[str]) -> str:
    return value if value in allowed else OTHER

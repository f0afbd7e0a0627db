"""Gauges read at scrape time: the search index and the questions being served or waiting.

These are states, not events, and their owners already know them (the indexer counts its
documents, the conversation locks know who holds and who waits), so they are asked when
Prometheus scrapes instead of being pushed on every change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from tools import IndexStatus
from tools.vectors.state import VectorStatus

QueueLoad = Callable[[], tuple[int, int]]
"""Conversations being served now, and questions waiting for their conversation's turn."""


class LiveGauges(Collector):
    """Index documents, readiness and build time; the questions' queue depth."""

    def __init__(
        self,
        index: Callable[[], IndexStatus],
        queue: QueueLoad,
        vectors: Callable[[], VectorStatus] | None = None,
    ) -> None:
        self._index = index
        self._queue = queue
        self._vectors = vectors

    def describe(self) -> Iterable[GaugeMetricFamily]:
        """The families, without reading anything (the registry asks at registration)."""
        return list(_families())

    def collect(self) -> Iterable[GaugeMetricFamily]:
        """The families with their current values."""
        documents, ready, build, queue = _families()
        status = self._index()
        documents.add_metric([], status.documents)
        ready.add_metric([], 1.0 if status.ready else 0.0)
        families = [documents, ready]
        if status.build_seconds is not None:
            build.add_metric([], status.build_seconds)
            families.append(build)
        running, waiting = self._queue()
        queue.add_metric(["running"], running)
        queue.add_metric(["waiting"], waiting)
        families.append(queue)
        vectors = self._vectors() if self._vectors is not None else None
        if vectors is not None and vectors.configured:
            passages, calls = _meaning_families()
            passages.add_metric(["done"], vectors.passages_done)
            passages.add_metric(["total"], vectors.passages_total)
            calls.add_metric([], vectors.calls)
            families += [passages, calls]
        return families


def _families() -> tuple[
    GaugeMetricFamily, GaugeMetricFamily, GaugeMetricFamily, GaugeMetricFamily
]:
    return (
        GaugeMetricFamily("docs_bot_index_documents", "Documents in the search index."),
        GaugeMetricFamily(
            "docs_bot_index_ready", "1 once the first index build has finished, else 0."
        ),
        GaugeMetricFamily(
            "docs_bot_index_build_seconds",
            "How long the last full pass over the documents took (the first build, then "
            "each safety rescan).",
        ),
        GaugeMetricFamily(
            "docs_bot_questions_in_progress",
            "Questions by state: running (a conversation being answered) or waiting (for "
            "their conversation's earlier question to end).",
            labels=["state"],
        ),
    )


def _meaning_families() -> tuple[GaugeMetricFamily, GaugeMetricFamily]:
    """Search by meaning's build, only when EMBEDDING_MODEL is set."""
    return (
        GaugeMetricFamily(
            "docs_bot_meaning_passages",
            "Passages of the documents: done (searchable by meaning) and total (an estimate "
            "until every document is cut).",
            labels=["state"],
        ),
        GaugeMetricFamily(
            "docs_bot_meaning_build_calls",
            "Embeddings requests made to build the vectors since start.",
        ),
    )

"""The reranker's outcomes as a counter read at scrape time (only when RERANK_URL is set).

The reranker counts its own outcomes as searches happen (`tools.vectors.rerank`); this reads
them when Prometheus asks. The only label is the outcome, from a fixed set: never the URL, the
model or the key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from tools.vectors.rerank import OUTCOMES


class RerankCounts(Collector):
    """`docs_bot_rerank_total{outcome}`: searches by how their rerank ended."""

    def __init__(self, counts: Mapping[str, int]) -> None:
        self._counts = counts

    def describe(self) -> Iterable[CounterMetricFamily]:
        """The family, without reading anything (the registry asks at registration)."""
        return [_family()]

    def collect(self) -> Iterable[CounterMetricFamily]:
        """The family with every outcome's count now."""
        family = _family()
        for outcome in OUTCOMES:
            family.add_metric([outcome], float(self._counts.get(outcome, 0)))
        return [family]


def _family() -> CounterMetricFamily:
    return CounterMetricFamily(
        "docs_bot_rerank",
        "Searches whose candidates went to the reranker (RERANK_URL), by outcome: ok "
        "(reordered), timeout, error (HTTP error or no connection), bad_reply (not a ranking "
        "of the texts sent) and skipped (passed over for FALLBACK_COOLDOWN_S after a failure); "
        "all but ok kept the fused order.",
        labels=["outcome"],
    )

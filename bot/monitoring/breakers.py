"""The models' breakers as gauges read at scrape time: which model of the chain is passed over.

Only the chain's names become labels (MODEL and FALLBACK_MODELS), never a server's URL or key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from bot.agent.breaker import BreakerState

ModelStates = Callable[[], tuple[BreakerState, ...]]
"""Each model of the chain and its breaker; empty without fallbacks."""


class BreakerGauges(Collector):
    """`docs_bot_model_breaker_open{model}`: 1 while the model is passed over, else 0."""

    def __init__(self, states: ModelStates) -> None:
        self._states = states

    def describe(self) -> Iterable[GaugeMetricFamily]:
        """The family, without reading anything (the registry asks at registration)."""
        return [_family()]

    def collect(self) -> Iterable[GaugeMetricFamily]:
        """The family with each model's state now; nothing without fallbacks."""
        states = self._states()
        if not states:
            return []
        family = _family()
        for state in states:
            family.add_metric([state.model], 1.0 if state.open else 0.0)
        return [family]


def _family() -> GaugeMetricFamily:
    return GaugeMetricFamily(
        "docs_bot_model_breaker_open",
        "1 while a model of the chain (MODEL, FALLBACK_MODELS) is passed over after an outage "
        "until its cool-down (FALLBACK_COOLDOWN_S) ends, else 0; only with fallbacks.",
        labels=["model"],
    )

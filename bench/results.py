"""What a benchmark hands back: measured metrics, aims checked, notes; JSON between processes."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.stats import median, p95


@dataclass
class Metric:
    """One measured quantity: our samples and, where one exists, the reference's.

    `lower_is_better` decides which way the ratio reads; the ratio is always reference/ours
    for times (how many times faster we are) unless `ratio_ours_over_ref` is set.
    """

    name: str
    unit: str
    ours: list[float]
    reference: list[float] = field(default_factory=list)
    reference_label: str = ""
    ratio_ours_over_ref: bool = False
    note: str = ""

    @property
    def ours_median(self) -> float:
        return median(self.ours)

    @property
    def ours_p95(self) -> float:
        return p95(self.ours)

    @property
    def ref_median(self) -> float:
        return median(self.reference)

    @property
    def ref_p95(self) -> float:
        return p95(self.reference)

    @property
    def ratio(self) -> float:
        """Reference over ours (or ours over reference), from the medians; NaN without one."""
        ours, ref = self.ours_median, self.ref_median
        if not self.reference or math.isnan(ours) or math.isnan(ref):
            return math.nan
        if self.ratio_ours_over_ref:
            return ours / ref if ref else math.nan
        return ref / ours if ours else math.inf


@dataclass
class Aim:
    """A target from the issue and whether this run met it (None: could not be judged).

    With `value` and `limit`, a miss also says by how much.
    """

    text: str
    met: bool | None
    detail: str = ""
    value: float | None = None
    limit: float | None = None
    unit: str = ""
    higher_is_better: bool = False

    @property
    def shortfall(self) -> str:
        """`missed by …` for a judged miss with numbers, else empty."""
        if self.met is not False or self.value is None or self.limit is None:
            return ""
        gap = self.limit - self.value if self.higher_is_better else self.value - self.limit
        times = self.value / self.limit if self.limit else math.inf
        return f"missed by {gap:.3g} {self.unit}".rstrip() + f" ({times:.2f}× the limit)"


@dataclass
class BenchResult:
    """Everything one benchmark (or one variant of it) measured."""

    name: str
    title: str
    metrics: list[Metric] = field(default_factory=list)
    aims: list[Aim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    peak_rss_mb: float = math.nan

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BenchResult:
        return cls(
            name=data["name"],
            title=data["title"],
            metrics=[Metric(**m) for m in data.get("metrics", [])],
            aims=[Aim(**a) for a in data.get("aims", [])],
            notes=list(data.get("notes", [])),
            error=data.get("error"),
            seconds=float(data.get("seconds", 0.0)),
            peak_rss_mb=float(data.get("peak_rss_mb", math.nan)),
        )

    def merge(self, other: BenchResult) -> None:
        """Fold a variant's findings into this table."""
        self.metrics.extend(other.metrics)
        self.aims.extend(other.aims)
        self.notes.extend(n for n in other.notes if n not in self.notes)
        self.seconds += other.seconds
        if other.error:
            self.error = f"{self.error}; {other.error}" if self.error else other.error

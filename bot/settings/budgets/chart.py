"""The `/usage` chart: tokens per day of a month, one bar per day, as PNG bytes.

matplotlib draws it with the Agg backend (no display, no GUI toolkit) on an `Figure` of its
own, never pyplot's global state, so charts drawn in threads at once do not meet. Drawing takes
tens of milliseconds, so the caller runs it off the event loop (`asyncio.to_thread`).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import date

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def daily_chart(days: Sequence[tuple[date, int]], *, title: str) -> bytes:
    """A bar chart of tokens per day, as a PNG."""
    figure = Figure(figsize=(8, 4), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.bar([day.day for day, _ in days], [tokens for _, tokens in days], color="#4a7bd0")
    axes.set_title(title)
    axes.set_xlabel(days[0][0].strftime("%Y-%m") if days else "")
    axes.set_ylabel("tokens")
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()

"""Markdown for RESULTS.md and the terminal: one table per benchmark."""

from __future__ import annotations

import math
from collections.abc import Sequence

from bench.results import Aim, BenchResult, Metric


def fmt(value: float) -> str:
    """A number with as many digits as it deserves."""
    if math.isnan(value):
        return "–"
    if math.isinf(value):
        return "∞"
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:,.0f}".replace(",", " ")
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def _ratio_cell(metric: Metric) -> str:
    ratio = metric.ratio
    if math.isnan(ratio):
        return "–"
    if metric.ratio_ours_over_ref:
        return f"ours/ref {fmt(ratio)}"
    return f"ref/ours {fmt(ratio)}×"


def _metric_row(metric: Metric) -> str:
    ref_label = metric.reference_label or ("–" if not metric.reference else "reference")
    cells = [
        metric.name,
        metric.unit,
        fmt(metric.ours_median),
        fmt(metric.ours_p95),
        str(len(metric.ours)),
        ref_label,
        fmt(metric.ref_median) if metric.reference else "–",
        fmt(metric.ref_p95) if metric.reference else "–",
        _ratio_cell(metric),
    ]
    if metric.note:
        cells[0] = f"{metric.name} ({metric.note})"
    return "| " + " | ".join(cells) + " |"


def _aim_detail(aim: Aim) -> str:
    return "; ".join(part for part in (aim.detail, aim.shortfall) if part)


def _aim_line(aim: Aim) -> str:
    verdict = {True: "**met**", False: "**missed**", None: "**not judged**"}[aim.met]
    detail = _aim_detail(aim)
    return f"- Aim: {aim.text}: {verdict}" + (f" — {detail}" if detail else "")


def render_table(result: BenchResult, command: str, machine: str, date: str) -> str:
    """One benchmark's section."""
    lines = [f"## {result.name} — {result.title}", ""]
    lines.append(f"- Machine: {machine}")
    lines.append(f"- Date: {date}; this benchmark took {result.seconds:.0f} s")
    lines.append(f"- Command: `{command}`")
    lines.append("")
    if result.error:
        lines.append(f"**Not (fully) measured:** {result.error}")
        lines.append("")
    if result.metrics:
        lines.append(
            "| metric | unit | ours median | ours p95 | runs | reference | ref median "
            "| ref p95 | ratio |"
        )
        lines.append("|---|---|--:|--:|--:|---|--:|--:|--:|")
        lines.extend(_metric_row(metric) for metric in result.metrics)
        lines.append("")
    lines.extend(_aim_line(aim) for aim in result.aims)
    if result.aims:
        lines.append("")
    if result.notes:
        lines.append("Notes:")
        lines.extend(f"- {note}" for note in result.notes)
        lines.append("")
    return "\n".join(lines)


def render_summary(results: Sequence[BenchResult], *, measured: str = "") -> str:
    """A short list of every aim, met or not, at the top of the file; `measured` (a date and a
    commit) stands on every row, so a row copied elsewhere still says when it was true."""
    lines = ["| benchmark | aim | verdict | measured |", "|---|---|---|---|"]
    for result in results:
        if not result.aims:
            note = f"not measured: {result.error or 'no aims'}"
            lines.append(f"| {result.name} | – | {note} | {measured} |")
        for aim in result.aims:
            verdict = {True: "met", False: "missed", None: "not judged"}[aim.met]
            detail = f" ({_aim_detail(aim)})" if _aim_detail(aim) else ""
            lines.append(f"| {result.name} | {aim.text} | {verdict}{detail} | {measured} |")
    return "\n".join(lines)


def render_document(
    results: Sequence[BenchResult],
    commands: dict[str, str],
    machine: str,
    date: str,
    full: str,
    *,
    version: str = "unknown",
) -> str:
    """The whole RESULTS.md."""
    parts = [
        "# Benchmark results",
        "",
        f"Produced by `{full}` on {date}, code at commit {version}.",
        f"Machine: {machine}.",
        "",
        "Every figure is measured next to its reference in the same run: these machines are "
        "noisy, so ratios hold better than absolute times. Medians and 95th percentiles are over "
        "the runs counted in the `runs` column; `ratio` reads reference ÷ ours for times "
        "(above 1: we are faster) and ours ÷ reference where marked. Each benchmark runs in a "
        "fresh process, so peak memory figures do not leak between them.",
        "",
        "## Aims at a glance",
        "",
        render_summary(results, measured=f"{date.split(maxsplit=1)[0]}, {version}"),
        "",
    ]
    parts.extend(render_table(r, commands[r.name], machine, date) for r in results)
    return "\n".join(parts).rstrip() + "\n"


def replace_section(document: str, section: str) -> str:
    """`document` with the section of the same `## ` heading (up to its ` — `) replaced by
    `section`, or `section` added at the end when it has none."""
    key = section.split("\n", 1)[0].split(" — ", 1)[0] + " — "
    lines = document.rstrip("\n").split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(key)), None)
    if start is None:
        return "\n".join(lines) + "\n\n" + section.rstrip("\n") + "\n"
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    kept = lines[:start] + section.rstrip("\n").split("\n") + [""] + lines[end:]
    return "\n".join(kept).rstrip("\n") + "\n"

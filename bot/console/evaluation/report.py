"""The results written out: a table for the terminal, Markdown for people, JSON for machines."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.console.evaluation.results import QuestionResult
from bot.console.evaluation.summary import ModelSummary

_WHY_SHOWN = 100
_SUMMARY_HEADINGS = (
    "model",
    "accuracy",
    "cited right",
    "quotes ok/invented",
    "rounds",
    "tokens in/out",
    "cost",
    "first token p50/p95",
    "answer p50/p95",
)


def terminal_table(results: Sequence[QuestionResult], summaries: Sequence[ModelSummary]) -> str:
    """Each question's verdict and why, then one line per model."""
    rows = [
        [r.model, str(r.number), "pass" if r.passed else "FAIL", _short(r.why)]
        for r in _ordered(results)
    ]
    parts = [_aligned(["model", "#", "result", "why"], rows)]
    parts.append(_aligned(list(_SUMMARY_HEADINGS), [_summary_row(s) for s in summaries]))
    return "\n\n".join(parts) + "\n"


def markdown_report(
    source: str, results: Sequence[QuestionResult], summaries: Sequence[ModelSummary]
) -> str:
    """A report for people: the models compared, then every question with its answer."""
    lines = [f"# Evaluation of {_cell(source)}", "", "## Models", ""]
    summary_rows = [[_cell(cell) for cell in _summary_row(s)] for s in summaries]
    lines += _markdown_table(list(_SUMMARY_HEADINGS), summary_rows)
    lines += ["", "## Questions", ""]
    rows = [
        [
            _cell(r.model),
            str(r.number),
            _cell(r.question),
            "✅ pass" if r.passed else "❌ fail",
            _cell(r.why),
            _cell(", ".join(r.sources)),
        ]
        for r in _ordered(results)
    ]
    lines += _markdown_table(["model", "#", "question", "result", "why", "files read"], rows)
    failed = [r for r in _ordered(results) if not r.passed and r.answer]
    if failed:
        lines += ["", "## Answers that failed", ""]
        for r in failed:
            lines += [f"### {_cell(r.model)}, question {r.number}: {_cell(r.question)}", ""]
            lines += ["> " + line for line in r.answer.splitlines()] + [""]
    return "\n".join(lines).rstrip() + "\n"


def json_report(
    source: str, results: Sequence[QuestionResult], summaries: Sequence[ModelSummary]
) -> str:
    """Everything measured, for machines: `models` (summaries) and `questions` (results)."""
    document: dict[str, Any] = {
        "file": source,
        "models": [s.model_dump(mode="json") for s in summaries],
        "questions": [r.model_dump(mode="json") for r in _ordered(results)],
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _ordered(results: Sequence[QuestionResult]) -> list[QuestionResult]:
    models: dict[str, int] = {}
    for r in results:
        models.setdefault(r.model, len(models))
    return sorted(results, key=lambda r: (models[r.model], r.number))


def _summary_row(s: ModelSummary) -> list[str]:
    return [
        s.model,
        f"{s.accuracy:.0%} ({s.passed}/{s.questions})",
        "—" if s.cited_right is None else f"{s.cited_right:.0%}",
        f"{s.quotes_found}/{s.quotes_invented}",
        str(s.rounds),
        f"{s.prompt_tokens}/{s.completion_tokens}",
        "—" if s.cost is None else f"{s.cost:.4f}",
        _times(s.first_token_p50, s.first_token_p95),
        _times(s.answer_p50, s.answer_p95),
    ]


def _times(p50: float | None, p95: float | None) -> str:
    if p50 is None or p95 is None:
        return "—"
    return f"{p50:.2f}s/{p95:.2f}s"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _WHY_SHOWN else text[: _WHY_SHOWN - 1] + "…"


def _aligned(headings: list[str], rows: list[list[str]]) -> str:
    table = [headings, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(headings))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in table
    )


def _markdown_table(headings: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(headings) + " |", "|" + "---|" * len(headings)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _cell(text: str) -> str:
    """Text that stays in its Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")

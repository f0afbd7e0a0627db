"""What a model's results add up to: accuracy, citing, quotes, tokens, cost and times."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from bot.console.evaluation.results import QuestionResult


@dataclass(frozen=True, slots=True)
class Prices:
    """Dollars (or any currency) per million prompt and completion tokens."""

    prompt: float
    completion: float


class ModelSummary(BaseModel):
    """One model over the whole file.

    `cited_right`: the share of the questions with `cite` whose files were all read; None when
    no question has `cite`. `cost`: None without prices. Times are seconds; `first_token_*`
    count only the answers that streamed.
    """

    model_config = ConfigDict(frozen=True)

    model: str
    questions: int
    passed: int
    failed_to_answer: int
    accuracy: float
    cited_right: float | None
    quotes_found: int
    quotes_invented: int
    rounds: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    first_token_p50: float | None
    first_token_p95: float | None
    answer_p50: float | None
    answer_p95: float | None


def summarise(
    model: str, results: Sequence[QuestionResult], prices: Prices | None
) -> ModelSummary:
    """Add up `results` (one model's) into its summary."""
    count = len(results)
    citing = [r.cited_right for r in results if r.cited_right is not None]
    prompt = sum(r.prompt_tokens for r in results)
    completion = sum(r.completion_tokens for r in results)
    cost = None
    if prices is not None:
        cost = (prompt * prices.prompt + completion * prices.completion) / 1_000_000
    first = [r.first_token_s for r in results if r.first_token_s is not None]
    answered = [r.elapsed_s for r in results if r.error is None]
    passed = sum(1 for r in results if r.passed)
    return ModelSummary(
        model=model,
        questions=count,
        passed=passed,
        failed_to_answer=sum(1 for r in results if r.error is not None),
        accuracy=passed / count if count else 0.0,
        cited_right=sum(citing) / len(citing) if citing else None,
        quotes_found=sum(r.quotes_found for r in results),
        quotes_invented=sum(r.quotes_invented for r in results),
        rounds=sum(r.rounds for r in results),
        prompt_tokens=prompt,
        completion_tokens=completion,
        cost=cost,
        first_token_p50=percentile(first, 50),
        first_token_p95=percentile(first, 95),
        answer_p50=percentile(answered, 50),
        answer_p95=percentile(answered, 95),
    )


def percentile(values: Sequence[float], percent: float) -> float | None:
    """The nearest-rank percentile (a value that was measured); None of nothing."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1]

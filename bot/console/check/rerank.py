"""Whether the reranker at RERANK_URL ranks: one request of a question and two passages.

A wrong URL, dialect or key would otherwise show only as searches in their fused order and a
failure counter in the metrics. The line names the dialect the server answered in and whether
it put the passage that answers the question first; failures say what went wrong and the URL
tried, never the key.
"""

from __future__ import annotations

from dataclasses import replace

from bot.console.check.outcome import Outcome, failed, passed, skipped
from bot.services import rerank_config
from bot.settings.model import Settings
from tools.vectors.rerank import Reranker, RerankError

SUBJECT = "reranker"
TIMEOUT_S = 20.0
QUERY = "Сколько дней длится ежегодный отпуск?"
PASSAGES = (
    "Бумаги с персональными данными уничтожаются в конце квартала.",
    "Ежегодный оплачиваемый отпуск длится 28 календарных дней.",
)


async def check_rerank(
    settings: Settings, *, offline: bool = False, timeout_s: float = TIMEOUT_S
) -> Outcome:
    """Skipped when RERANK_URL is empty or the check is offline; else one request."""
    config = rerank_config(settings)
    if config is None:
        return skipped(SUBJECT, "RERANK_URL is empty: searches keep their fused order")
    if offline:
        return skipped(SUBJECT, "offline")
    client = Reranker(replace(config, timeout_s=timeout_s, gate=None))
    named = f"{config.model} at {config.url}" if config.model else config.url
    try:
        order = await client.rank(QUERY, PASSAGES, top_n=len(PASSAGES))
    except RerankError as exc:
        return failed(SUBJECT, f"{exc} ({named})")
    finally:
        await client.close()
    verdict = "puts the answering passage first" if order[:1] == [1] else "ranks the passages"
    return passed(SUBJECT, f"{named} {verdict} ({client.dialect} dialect)")

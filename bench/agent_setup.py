"""The agent's configuration for a benchmark, built the way the bot builds it: from Settings."""

from __future__ import annotations

from bot.agent import AgentConfig
from bot.settings.model import Settings


def agent_config(
    model: str, window: int, output_tokens: int = 2_048, *, budget: int = 0
) -> AgentConfig:
    """`AgentConfig.from_settings` for these numbers (`budget`: CONTEXT_BUDGET_TOKENS); no
    `.env` or environment leaks in."""
    settings = Settings(
        _env_file=None,
        model=model,
        context_window=window,
        max_output_tokens=output_tokens,
        context_budget_tokens=budget,
        max_rounds=6,
        system_prompt=None,
        system_prompt_file=None,
    )
    return AgentConfig.from_settings(settings)

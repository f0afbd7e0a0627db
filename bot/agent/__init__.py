"""The agent loop: history in, tool calls executed, an answer out. Knows nothing of Telegram."""

from bot.agent.config import AgentConfig
from bot.agent.history import History, HistoryStore, HistoryUnavailable
from bot.agent.llm import build_client
from bot.agent.locks import KeyedLocks
from bot.agent.loop import Agent
from bot.agent.observer import Observer
from bot.agent.prompts import DEFAULT_SYSTEM_PROMPT, PromptError
from bot.agent.types import (
    AgentError,
    AgentEvent,
    Answer,
    AnswerDraft,
    AnswerReady,
    ContextOverflow,
    ContextStatus,
    EventHandler,
    ModelAuthError,
    ModelBadReply,
    ModelRateLimited,
    ModelStreamCut,
    ModelUnavailable,
    ToolFinished,
    ToolRunner,
    ToolStarted,
    Usage,
)

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "Agent",
    "AgentConfig",
    "AgentError",
    "AgentEvent",
    "Answer",
    "AnswerDraft",
    "AnswerReady",
    "ContextOverflow",
    "ContextStatus",
    "EventHandler",
    "History",
    "HistoryStore",
    "HistoryUnavailable",
    "KeyedLocks",
    "ModelAuthError",
    "ModelBadReply",
    "ModelRateLimited",
    "ModelStreamCut",
    "ModelUnavailable",
    "Observer",
    "PromptError",
    "ToolFinished",
    "ToolRunner",
    "ToolStarted",
    "Usage",
    "build_client",
]

"""The agent loop: history in, tool calls executed, an answer out. Knows nothing of Telegram.

- `loop` (the agent: a question in, rounds of tool calls, an answer out), `calls` (one reply's
  tool calls, run concurrently), `types` (what it promises its callers: events, delivered
  safely, the answer, its errors), `observer` (what it tells a watcher);
- the model: `client` (the SDK client, made at first use), `chain` (the main model, then the
  fallbacks), `breaker` (a failed model passed over for a cool-down), `shared_breakers` (the
  breakers told to and learnt from every worker on one database), `llm` (one call in, one
  tolerant reply out), `replies` and `streaming` (a completion read whole or from its chunks,
  reasoning kept out of sight), `model_errors` (failures as the agent's error families);
- the request: `config` (what the agent takes from the settings), `prompts` (the system prompt
  and the loop's own notes), `context` (fitting the window), `past_turns` (which past turns
  a request keeps, trimmed in steps so its start stays cached), `pruning` (past turns' tool
  results sent as stubs), `stubs` (a used result as a stub naming what was read where),
  `tokens` (counting offline);
- pictures: `pictures` (a picture made upright, shrunk and stripped of its metadata, and its
  tokens), `vision` (the user turn with image parts, a refusal of images told by its words,
  what the history keeps instead), `picture_text` (their text read by OCR, for a model that
  takes no images), `shown_pages` (a document's page `read_file` drew, shown right after the
  tool results);
- the answer: `small_talk` (greetings and thanks, which need no "not from the documents" note);
- the conversation: `locks` (one conversation at a time); the log it is written to, and
  `Usage`, are `bot.storage.history`'s;
- beside the loop: `quotes/` (an answer's quotes checked against the document text the tools
  showed) and `speech/` (voice questions turned into text over an OpenAI-compatible endpoint).

Its names load their modules on first use (`__getattr__`), so taking one (`PromptError` for
the entrance) does not import the model SDK, the toolbox and the rest of the loop.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.agent.config import AgentConfig
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
        Handover,
        ModelAuthError,
        ModelBadReply,
        ModelRateLimited,
        ModelStreamCut,
        ModelUnavailable,
        ToolFinished,
        ToolRunner,
        ToolStarted,
    )
    from bot.storage.history import History, HistoryUnavailable, Usage
    from bot.storage.history.sqlite import HistoryStore

_HOMES = {
    "AgentConfig": "bot.agent.config",
    "History": "bot.storage.history",
    "HistoryStore": "bot.storage.history.sqlite",
    "HistoryUnavailable": "bot.storage.history",
    "build_client": "bot.agent.llm",
    "KeyedLocks": "bot.agent.locks",
    "Agent": "bot.agent.loop",
    "Observer": "bot.agent.observer",
    "DEFAULT_SYSTEM_PROMPT": "bot.agent.prompts",
    "PromptError": "bot.agent.prompts",
    "AgentError": "bot.agent.types",
    "AgentEvent": "bot.agent.types",
    "Answer": "bot.agent.types",
    "AnswerDraft": "bot.agent.types",
    "AnswerReady": "bot.agent.types",
    "ContextOverflow": "bot.agent.types",
    "ContextStatus": "bot.agent.types",
    "EventHandler": "bot.agent.types",
    "Handover": "bot.agent.types",
    "ModelAuthError": "bot.agent.types",
    "ModelBadReply": "bot.agent.types",
    "ModelRateLimited": "bot.agent.types",
    "ModelStreamCut": "bot.agent.types",
    "ModelUnavailable": "bot.agent.types",
    "ToolFinished": "bot.agent.types",
    "ToolRunner": "bot.agent.types",
    "ToolStarted": "bot.agent.types",
    "Usage": "bot.storage.history",
}
"""Each public name and the module it lives in."""

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
    "Handover",
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


def __getattr__(name: str) -> Any:
    """Load a public name's module when the name is first used."""
    home = _HOMES.get(name)
    if home is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value

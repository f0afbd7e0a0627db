"""The test suite's fakes (model server, Telegram session), loaded by name at run time.

They are test support code: loading them by name keeps `mypy bench` about the benchmarks, not
about the fixtures, and a clear error says what is missing if they ever move.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


def _load(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        msg = f"the benchmarks reuse {name} from the test suite, and it cannot be imported: {exc}"
        raise ImportError(msg) from exc


def fake_llm() -> Any:
    """`tests.support.fake_llm`: FakeLLM, Reply, text_reply, tool_calls_reply."""
    return _load("tests.support.fake_llm")


def fake_telegram() -> Any:
    """`tests.support.fake_telegram`: FakeTelegramSession, Updates, BOT_TOKEN."""
    return _load("tests.support.fake_telegram")

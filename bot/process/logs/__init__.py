"""Logging set-up with a filter that blanks secrets out of every record, whoever logs it.

Lines are plain text or, with LOG_FORMAT=json, one JSON object each (`json_lines`); both carry
the conversation and question a line was logged for (`context`) when one is known.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Literal, TextIO

from bot.process.logs.context import LogContextFilter
from bot.process.logs.json_lines import JsonLinesFormatter

_MASK = "***"
NOISY_LOGGERS = (
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "openai",
    "aiohttp.access",
    "watchfiles",
)
"""Libraries that log every request at INFO; only their warnings are kept."""


class SecretsFilter(logging.Filter):
    """Replaces known secret strings in a record's message and arguments.

    Libraries sometimes log URLs that carry the bot token (`/bot<token>/getUpdates`); this
    filter is attached to the root handlers so such lines are masked before they are written.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self._secrets = sorted({s for s in secrets if len(s) >= 6}, key=len, reverse=True)

    def _mask(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, _MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._secrets:
            return True
        message = record.getMessage()
        masked = self._mask(message)
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._mask(record.exc_text)
        if masked != message or record.args:
            record.msg = masked
            record.args = None
        return True


LogFormat = Literal["text", "json"]


def setup_logging(
    level: str,
    secrets: Iterable[str] = (),
    *,
    log_format: LogFormat = "text",
    stream: TextIO | None = None,
) -> None:
    """Log to `stream` (stderr) at `level` as text or JSON lines, masking `secrets` in each."""
    handler = logging.StreamHandler(stream)
    if log_format == "json":
        handler.setFormatter(JsonLinesFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(SecretsFilter(secrets))
    handler.addFilter(LogContextFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # The HTTP clients log every request at INFO; only their warnings matter here.
    for noisy in NOISY_LOGGERS:
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))

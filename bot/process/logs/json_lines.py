"""LOG_FORMAT=json: one JSON object per line, for log collectors that parse rather than grep.

Each object has `time` (ISO 8601, UTC), `level`, `logger` and `message`, then `conversation`
and `question` when the line was logged while a question ran, and `exception` with the trace
when there is one. The message and the trace are taken after the secrets filter has masked
them, so a secret never reaches a line in either format.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any


class JsonLinesFormatter(logging.Formatter):
    """Formats a record as one line of JSON (non-ASCII text kept readable)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _iso_utc(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for field in ("conversation", "question"):
            value = getattr(record, field, None)
            if value is not None:
                line[field] = value
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def _iso_utc(created: float) -> str:
    """`2025-01-31T12:00:00.123Z`: the record's time in UTC, to the millisecond."""
    moment = datetime.fromtimestamp(created, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

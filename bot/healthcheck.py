"""`python -m bot.healthcheck`: a cheap liveness probe for a container or a service manager.

Healthy means the running bot's heartbeat file in DATA_DIR was written within the last minute
(`bot.process.heartbeat`: the bot's event loop turns and DATA_DIR takes writes) and, where the bot
serves `GET /healthz` (on WEBHOOK_LISTEN in webhook mode, on METRICS_LISTEN in polling mode
when it is set), that it answers 200 there: the history store and the search index work too.
Exit 0 when healthy, 1 otherwise, with one line per problem.

It reads the settings the way the bot does (the environment, then `.env` in the working
directory) but opens no store, reads no document and calls nothing outside this machine, so
running it every 30 s costs a fraction of a second. `python -m bot check --offline` is the
thorough check, which reads every document.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request

from pydantic import ValidationError

from bot.process.data_files import DataFiles
from bot.process.heartbeat import STALE_AFTER_S, heartbeat_age
from bot.settings.model import Settings

HEALTH_PATH = "/healthz"
TIMEOUT_S = 5.0


def problems(settings: Settings, *, now: float, timeout_s: float = TIMEOUT_S) -> list[str]:
    """What is wrong with the running bot, one sentence each; empty when it is healthy."""
    found = []
    age = heartbeat_age(DataFiles(settings.data_dir).heartbeat, now=now)
    if age is None:
        found.append("no heartbeat in DATA_DIR: the bot is not running, or is still starting")
    elif age > STALE_AFTER_S:
        found.append(
            f"the heartbeat is {age:.0f} s old: the bot's event loop is stuck, "
            "or DATA_DIR takes no writes"
        )
    url = health_url(settings)
    if url is not None:
        problem = _served_health(url, timeout_s)
        if problem is not None:
            found.append(problem)
    return found


def health_url(settings: Settings) -> str | None:
    """Where the bot answers `/healthz`, as seen from this machine; None where it does not."""
    if settings.webhook_url:
        host, port = settings.webhook_host, settings.webhook_port
    elif settings.metrics_address is not None:
        host, port = settings.metrics_address
    else:
        return None
    if host in ("", "0.0.0.0"):  # listening on every address: ask the loopback
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}{HEALTH_PATH}"


def _served_health(url: str, timeout_s: float) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            response.read()
    except urllib.error.HTTPError as exc:
        return f"GET {HEALTH_PATH} answered {exc.code}{_reason(exc.read())}"
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return f"nothing answers GET {url} ({reason})"
    return None


def _reason(body: bytes) -> str:
    """The short reason a `/healthz` body gives, when it gives one."""
    try:
        reason = json.loads(body).get("reason")
    except (ValueError, AttributeError):
        return ""
    return f": {reason}" if isinstance(reason, str) and reason else ""


def main() -> int:
    """Print the verdict; return 0 when healthy."""
    try:
        settings = Settings()
    except ValidationError as exc:
        print(f"unhealthy: the settings do not load ({exc.error_count()} problems)")  # noqa: T201
        return 1
    found = problems(settings, now=time.time())
    for problem in found:
        print(f"unhealthy: {problem}")  # noqa: T201 - the probe's output is its report
    if not found:
        print("healthy")  # noqa: T201
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

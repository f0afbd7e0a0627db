"""One model's circuit breaker: after an outage the model is passed over for a cool-down.

Without it, every question during an outage would first wait for the failing model (a refused
connection is quick, a timeout with the SDK's retries is minutes) before the fallback answers.
With it, the failure is paid once per cool-down: when the cool-down is over, the next call may
try the model again (one call, not every call in flight: taking the trial starts a new
cool-down for the others), and its outcome closes the breaker or opens it again.

With several workers on one database, a breaker that opens or closes in one worker is applied
in the others (`learnt`, `forgotten`; `bot.agent.shared_breakers` carries them), so the outage
is paid once, not once per process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BreakerState:
    """What `/status` and the metrics show of one model: names and numbers, never a URL.

    `open`: the model is being passed over; `retry_in_s`: until it may be tried again (0 when
    it may be tried now); `failures`: outages in a row; `last_kind`: the last one's
    `AgentError.kind`.
    """

    model: str
    open: bool
    retry_in_s: float
    failures: int
    last_kind: str | None


class Breaker:
    """Closed until the model fails with an outage; then open for `cooldown_s` (by `clock`)."""

    def __init__(
        self, model: str, cooldown_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._model = model
        self._cooldown_s = cooldown_s
        self._clock = clock
        self._open_until: float | None = None
        self._failures = 0
        self._last_kind: str | None = None

    @property
    def model(self) -> str:
        """The model this breaker guards."""
        return self._model

    @property
    def cooldown_s(self) -> float:
        """How long a failure has the model passed over."""
        return self._cooldown_s

    def allows(self) -> bool:
        """Whether a call may go to the model now. Past the cool-down this takes the trial:
        the cool-down starts again, so calls meanwhile still pass it over."""
        if self._open_until is None:
            return True
        now = self._clock()
        if now < self._open_until:
            return False
        self._open_until = now + self._cooldown_s
        return True

    def failed(self, kind: str) -> None:
        """The model failed with an outage (`kind` of the error): pass it over for a while."""
        self._open_until = self._clock() + self._cooldown_s
        self._failures += 1
        self._last_kind = kind

    def succeeded(self) -> None:
        """The model answered: close the breaker."""
        self._open_until = None
        self._failures = 0

    def learnt(self, retry_in_s: float, kind: str) -> None:
        """Another worker found the model down (`kind`): pass it over for `retry_in_s`."""
        self._open_until = self._clock() + max(0.0, retry_in_s)
        self._failures = max(self._failures, 1)
        self._last_kind = kind

    def forgotten(self) -> None:
        """Another worker found the model answering again: close the breaker here too."""
        self.succeeded()

    def state(self) -> BreakerState:
        """The breaker as it stands now."""
        until = self._open_until
        left = 0.0 if until is None else max(0.0, until - self._clock())
        return BreakerState(
            model=self._model,
            open=until is not None,
            retry_in_s=left,
            failures=self._failures,
            last_kind=self._last_kind,
        )

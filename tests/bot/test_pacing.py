"""The per-chat pace of edits: about one a second, with a short burst after a quiet spell."""

from __future__ import annotations

from bot.telegram.output.pacing import EditPacer


class TestBurst:
    def test_a_quiet_chat_takes_two_calls_at_once_then_one_an_interval(self) -> None:
        now = [100.0]
        pacer = EditPacer(1.0, clock=lambda: now[0], burst=2)
        pacer.used(1)  # the status message
        assert pacer.delay(1) == 0, "the first answer text need not wait behind it"
        pacer.used(1)
        assert pacer.delay(1) == 1.0
        now[0] += 1.0
        pacer.used(1)
        assert pacer.delay(1) == 1.0, "then one call an interval"
        now[0] += 5.0
        assert pacer.delay(1) == 0
        pacer.used(1)
        assert pacer.delay(1) == 0, "quiet again: the burst is back"

    def test_flood_control_is_waited_out_in_full_and_earns_no_burst(self) -> None:
        now = [100.0]
        pacer = EditPacer(1.0, clock=lambda: now[0], burst=2)
        pacer.back_off(1, 3)
        assert pacer.delay(1) == 3.0
        now[0] += 3.0
        pacer.used(1)
        assert pacer.delay(1) == 1.0

    def test_without_a_burst_every_call_waits_its_interval(self) -> None:
        now = [100.0]
        pacer = EditPacer(0.5, clock=lambda: now[0])
        pacer.used(1)
        assert pacer.delay(1) == 0.5

"""`bench workers` gives each worker a core of its own where the machine has them, and says
what two workers would do on cores of their own where it has not."""

from __future__ import annotations

import math

from bench.bench_workers import Burst, Seats, seats


def _burst(each: list[float], fakes: float, database: float, sender: float) -> Burst:
    burst = Burst("PostgreSQL", len(each), 1_000, seats(len(each), [0, 1]))
    burst.elapsed.append(20.0)
    burst.each_worker_cpu.append(each)
    burst.worker_cpu.append(sum(each))
    burst.fakes_cpu.append(fakes)
    burst.database_cpu.append(database)
    burst.sender_cpu.append(sender)
    return burst


class TestSeats:
    def test_one_worker_on_two_cores_has_one_and_the_rest_the_other(self) -> None:
        planned = seats(1, [0, 1])
        assert planned == Seats(frozenset({0}), frozenset({1}))
        assert planned.apart
        assert planned.describe() == "workers on core 0; fakes, PostgreSQL and sender on core 1"

    def test_two_workers_on_two_cores_share_them_with_the_rest(self) -> None:
        planned = seats(2, [0, 1])
        assert not planned.apart
        assert planned.describe() == "every process shares cores 0-1"

    def test_two_workers_on_four_cores_leave_two_to_the_rest(self) -> None:
        planned = seats(2, [0, 1, 2, 3])
        assert planned == Seats(frozenset({0, 1}), frozenset({2, 3}))


class TestOnCoresOfTheirOwn:
    def test_the_busiest_worker_sets_the_time(self) -> None:
        burst = _burst([12.0, 9.0], fakes=3.0, database=2.0, sender=1.0)
        assert burst.own_cores_s(0) == (12.0, "the busiest worker's CPU")
        assert math.isclose(burst.own_cores_throughput, 1_000 / 12.0)

    def test_the_rest_on_one_core_sets_it_when_it_needs_longer(self) -> None:
        burst = _burst([5.0, 5.0], fakes=4.0, database=2.0, sender=1.0)
        assert burst.own_cores_s(0) == (7.0, "the fakes, PostgreSQL and the sender on one core")

    def test_no_core_makes_it_faster_than_the_model(self) -> None:
        burst = _burst([0.2, 0.2], fakes=0.1, database=math.nan, sender=0.1)
        assert burst.own_cores_s(0)[1] == "the model's delay"

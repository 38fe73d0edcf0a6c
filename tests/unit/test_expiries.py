"""The timer model the capture analysis checks against: the kernel's timer-wheel buckets."""

import pytest

from sctpbench.analysis import expiries, metrics


@pytest.mark.parametrize("delta, bucket", [
    (1, 1), (62, 1), (63, 8), (200, 8), (503, 8), (504, 64), (800, 64), (1000, 64), (4031, 64), (4032, 512),
])
def test_wheel_bucket_by_level(delta: int, bucket: int) -> None:
    assert metrics.timer_wheel_bucket_jiffies(delta) == bucket


def test_a_one_second_timer_at_hz_1000_may_fire_64_ms_late() -> None:
    # PLATFORM.md: a 1 s RTO was seen to fire after 1024 ms on the project's kernel.
    expiry = expiries.Expiry(0, 0, 1_024_000_000, 1000.0, metrics.timer_wheel_bucket_jiffies(1000) * 1.0)
    assert expiry.within
    assert not expiries.Expiry(0, 0, 1_066_000_000, 1000.0, 64.0).within
    assert not expiries.Expiry(0, 0, 998_000_000, 1000.0, 64.0).within


def test_the_model_doubles_and_caps() -> None:
    assert metrics.rto_series(200, 800, 5) == [200, 400, 800, 800, 800]
    assert metrics.rto_series(1000, 60000, 3) == [1000, 2000, 4000]

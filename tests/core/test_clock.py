"""core.clock: the wall clock unless a source is installed; then now() and monotonic() both follow it,
which is how a test lets a lease or a TTL lapse without waiting."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core import clock
from tests.support.clock import stepped_clock


def test_an_installed_source_moves_now_and_monotonic_together() -> None:
    with stepped_clock(datetime(2026, 12, 2, 12, 0, tzinfo=UTC)) as stepped:
        before = clock.monotonic()
        assert clock.now() == datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
        stepped.advance(90)
        assert clock.now() == datetime(2026, 12, 2, 12, 1, 30, tzinfo=UTC)
        assert clock.monotonic() - before == 90
    assert not clock.is_simulated()


def test_without_a_source_monotonic_never_goes_back() -> None:
    readings = [clock.monotonic() for _ in range(100)]
    assert readings == sorted(readings)


def test_one_source_at_a_time() -> None:
    with stepped_clock(), pytest.raises(RuntimeError, match="already installed"), stepped_clock():
        pass

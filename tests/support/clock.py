"""A core.clock source that moves only when the test says: a lease, a TTL or a heartbeat's interval
lapses by `advance`, not by sleeping (for code that reads core.clock.now or core.clock.monotonic)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.utils import timezone

from core.clock import clock_use


class SteppedClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@contextmanager
def stepped_clock(start: datetime | None = None) -> Iterator[SteppedClock]:
    """Installed for the block, starting at `start` (default: the wall clock's now)."""
    clock = SteppedClock(start or timezone.now())
    with clock_use(clock):
        yield clock

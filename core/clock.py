"""The clock of the money path: what "now" is for the queue, VM, reaper, billing and limits services,
and the seconds counter of this process's own intervals (the lookup cache's TTL).

It is the wall clock (django.utils.timezone.now) except while `clock_use` installs another source:
bench/costsim.py drives the real services on a simulated clock (a week of arrivals in seconds), so
every service on that path reads the time here, and row timestamps those services rely on
(VMInstance.created_at / state_changed_at, Submission.created_at) default to it. Tests install one to
let a lease or a TTL lapse without waiting for it. One process-wide source: the simulator is
single-threaded, and nothing else installs one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime

from django.utils import timezone

_source: Callable[[], datetime] | None = None


def now() -> datetime:
    """The current time: the installed source's, else the wall clock (aware, UTC)."""
    return _source() if _source is not None else timezone.now()


def monotonic() -> float:
    """Seconds for measuring an interval in this process: time.monotonic (which no clock step moves),
    else the installed source's time as a timestamp."""
    return _source().timestamp() if _source is not None else time.monotonic()


def is_simulated() -> bool:
    return _source is not None


@contextmanager
def clock_use(source: Callable[[], datetime]) -> Iterator[None]:
    """Read the time from `source` inside the block (not nestable: one simulation at a time)."""
    global _source
    if _source is not None:
        raise RuntimeError("a simulated clock is already installed")
    _source = source
    try:
        yield
    finally:
        _source = None

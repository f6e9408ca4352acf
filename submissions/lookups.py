"""A short-lived, per-process cache of the two rows every new submission reads and that rarely
change: the problem (with its current version) by slug, and the pool by name.

A hit saves the two queries of a POST /api/v1/submissions that read them. Only hits are
kept (a new problem or pool is seen at once), for HIPJUDGE_LOOKUP_CACHE_TTL seconds (0: no cache).
Saving or deleting a Problem, ProblemVersion or Pool in this process empties the cache; a change
made by another process (another web worker, the qcluster worker, `manage.py load_problems`) is
seen here after at most the TTL. Callers get their own copy of the cached instance.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings

from core import clock
from fleets.models import Pool
from submissions.models import Problem

T = TypeVar("T", Problem, Pool)

_entries: dict[tuple[str, str], tuple[float, Any]] = {}
_lock = threading.Lock()
_generation = 0  # bumped by every clear: a lookup that raced with a clear does not store its row


def lookups_clear(**_: Any) -> None:
    global _generation
    with _lock:
        _generation += 1
        _entries.clear()


def _cached(key: tuple[str, str], load: Callable[[], T | None]) -> T | None:
    ttl = settings.HIPJUDGE_LOOKUP_CACHE_TTL
    if ttl <= 0:
        return load()
    now = clock.monotonic()
    entry = _entries.get(key)
    if entry is not None and entry[0] > now:
        return copy.copy(entry[1])
    generation = _generation
    value = load()
    if value is not None:
        with _lock:
            if generation == _generation:
                _entries[key] = (now + ttl, copy.copy(value))
    return value


def problem_for_submission(*, slug: str) -> Problem | None:
    """The active problem with its current version loaded (without the bundle, statement and
    templates, which only the runner and the pages need)."""
    return _cached(("problem", slug), lambda: (
        Problem.objects.select_related("current_version").filter(slug=slug, is_active=True)
        .defer("current_version__bundle", "current_version__statement", "current_version__templates").first()))


def pool_for_submission(*, name: str) -> Pool | None:
    """The enabled pool of that name."""
    return _cached(("pool", name), lambda: Pool.objects.filter(name=name, enabled=True).first())

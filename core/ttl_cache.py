"""A per-process cache of values that are the same for every request and may be a few seconds old
(the problem list's shared part: its rows, solved counts and speed of light).

One thread computes a key's value while the others wait for it (the first time) or keep serving
the value that just expired (afterwards): under load a new value costs one computation per process
and TTL, not one per request waiting at the moment it expired. Keys may come from a request (its
filters): at most MAX_ENTRIES are kept, so they cannot fill the memory. A TTL of 0 turns it off.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any

from django.conf import settings

from core import clock

MAX_ENTRIES = 256


class TtlCache:
    def __init__(self, ttl: str | Callable[[], float]) -> None:
        """ttl: the name of the setting that gives the seconds (read at each get), or a function."""
        self._ttl_s = (lambda: float(getattr(settings, ttl))) if isinstance(ttl, str) else ttl
        self._entries: dict[Hashable, tuple[float, Any]] = {}
        self._locks: dict[Hashable, threading.Lock] = {}
        self._guard = threading.Lock()
        self._generation = 0  # bumped by clear(): a computation that raced with it is not kept

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        ttl = self._ttl_s()
        if ttl <= 0:
            return compute()
        entry = self._entries.get(key)
        if entry is not None and entry[0] > clock.monotonic():
            return entry[1]
        lock = self._lock(key)
        if not lock.acquire(blocking=entry is None):
            return entry[1]  # type: ignore[index]  # another thread computes it: the last value meanwhile
        try:
            entry = self._entries.get(key)
            if entry is not None and entry[0] > clock.monotonic():
                return entry[1]  # computed while this thread waited
            generation = self._generation
            value = compute()
            with self._guard:
                if generation == self._generation:
                    if len(self._entries) >= MAX_ENTRIES and key not in self._entries:
                        self._entries.clear()
                    self._entries[key] = (clock.monotonic() + ttl, value)
            return value
        finally:
            lock.release()

    def clear(self) -> None:
        with self._guard:
            self._generation += 1
            self._entries.clear()

    def _lock(self, key: Hashable) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                if len(self._locks) >= MAX_ENTRIES:
                    self._locks = {k: v for k, v in self._locks.items() if v.locked()}
                lock = self._locks[key] = threading.Lock()
            return lock

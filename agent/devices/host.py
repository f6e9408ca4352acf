"""The host device: buffers are NumPy allocations, time is the monotonic wall clock."""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

_ALIGN = 64


def last_level_cache_bytes() -> int:
    """The largest CPU cache from sysfs (the LLC); 32 MiB when sysfs does not say."""
    best = 0
    for size_file in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*/size"):
        text = size_file.read_text().strip().upper()
        scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1:], 1)
        try:
            best = max(best, int(text.rstrip("KM")) * scale)
        except ValueError:
            continue
    return best or 32 * 1024 * 1024


class HostDevice:
    name = "host"

    def __init__(self) -> None:
        self._buffers: dict[int, np.ndarray] = {}
        self._flush: np.ndarray | None = None

    def alloc(self, nbytes: int) -> int:
        raw = np.empty(max(nbytes, 1) + _ALIGN, dtype=np.uint8)
        offset = (-raw.ctypes.data) % _ALIGN
        ptr = raw.ctypes.data + offset
        self._buffers[ptr] = raw  # keeps the allocation alive for as long as the pointer is used
        return ptr

    def free_all(self) -> None:
        self._buffers.clear()

    def upload(self, ptr: int, host: np.ndarray) -> None:
        ctypes.memmove(ptr, host.ctypes.data, host.nbytes)

    def download(self, ptr: int, host: np.ndarray) -> None:
        ctypes.memmove(host.ctypes.data, ptr, host.nbytes)

    def synchronize(self) -> None:
        return None

    def timed_call(self, fn: Callable[[], None]) -> float:
        start = time.perf_counter_ns()
        fn()
        return (time.perf_counter_ns() - start) / 1e6

    def flush_bytes(self) -> int:
        return 2 * last_level_cache_bytes()

    def flush_cache(self) -> None:
        if self._flush is None:
            self._flush = np.zeros(self.flush_bytes() // 8, dtype=np.int64)
        self._flush += 1  # writes every line: the previous contents of the cache are evicted

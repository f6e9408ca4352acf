"""The host device: buffers are NumPy allocations, time is the monotonic wall clock."""

from __future__ import annotations

import ctypes
import mmap
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

_HUGE_PAGE = 2 << 20
_STAGGER = 5 * 64
EVICT_LIBRARY = "evict.so"  # agent.compiler builds it; the judge copies it into the box


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


def _load_evict(box: Path | None) -> Callable[[int, int], int] | None:
    if box is None or not (box / EVICT_LIBRARY).is_file():
        return None
    try:
        evict = ctypes.CDLL(str(box / EVICT_LIBRARY)).hj_evict
    except (OSError, AttributeError):
        return None
    evict.restype = ctypes.c_int
    evict.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return evict  # type: ignore[no-any-return]


class HostDevice:
    """Each timed call starts from memory: the case's buffers are evicted from every cache level
    (clflush, through the helper in the box), or, without the helper, a buffer of twice the
    last-level cache is swept."""

    name = "host"

    def __init__(self, box: Path | None = None) -> None:
        self._maps: list[mmap.mmap] = []
        self._sizes: dict[int, int] = {}
        self._evict = _load_evict(box)
        self._sweep: np.ndarray | None = None

    def alloc(self, nbytes: int) -> int:
        """A buffer in its own anonymous mapping, aligned to a huge page where the kernel grants one
        (MADV_HUGEPAGE), at a fixed offset that staggers buffers by five cache lines. The layout is
        then the same in every job: with malloc it depends on the allocator's history, and the
        buffers' offsets modulo 4 KiB change how they share the caches (the same 192^3 matmul ran
        0.44 ms with one malloc layout and 0.37 ms with another)."""
        offset = (len(self._maps) % 8) * _STAGGER
        size = -(-(max(nbytes, 1) + offset) // _HUGE_PAGE) * _HUGE_PAGE
        mapping = mmap.mmap(-1, size + _HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        base = ctypes.addressof(ctypes.c_char.from_buffer(mapping))
        aligned = (-base) % _HUGE_PAGE
        if hasattr(mmap, "MADV_HUGEPAGE"):
            mapping.madvise(mmap.MADV_HUGEPAGE, aligned, size)
        ptr = base + aligned + offset
        self._maps.append(mapping)  # keeps the memory mapped for as long as the pointer is used
        self._sizes[ptr] = max(nbytes, 1)
        return ptr

    def free_all(self) -> None:
        self._sizes.clear()
        for mapping in self._maps:
            mapping.close()
        self._maps = []

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

    @property
    def evicts_buffers(self) -> bool:
        return self._evict is not None

    def flush_bytes(self) -> int:
        if self._evict is not None:
            return sum(self._sizes.values())
        return 2 * last_level_cache_bytes()

    def flush_cache(self) -> None:
        if self._evict is not None:
            for ptr, size in self._sizes.items():
                if not self._evict(ptr, size):
                    self._evict = None  # no eviction instruction on this CPU: sweep from now on
                    break
            else:
                return
        if self._sweep is None:
            self._sweep = np.zeros(self.flush_bytes() // 8, dtype=np.int64)
        self._sweep += 1  # writes every line: the previous contents of the cache are evicted

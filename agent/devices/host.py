"""The host device as the trusted parent sees it: the kernel's buffers in a shared arena.

The parent lays the buffers out (agent.devices.memory.host_layout), writes the inputs, poisons the
outputs, fills the guard zones with canary bytes and, before each timed call, evicts the buffers
from every cache level with the helper it loaded into its own process (agent/devices/evict.cpp).
The kernel's process only maps the arena: it never sees the helper, so it cannot patch it.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

import numpy as np

from agent.devices.memory import (
    CANARY_BYTE,
    LEAD_BYTES,
    TRAIL_BYTES,
    Arena,
    BufferSpec,
    Placement,
    corrupted_range,
    describe_overrun,
    host_layout,
    poison_byte,
)

_LINE = 64


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


class Evictor:
    """Evicts address ranges with the compiled helper (clflushopt / dc civac), or without it sweeps
    a buffer of twice the last-level cache. Counts what it flushed, for the tests and the report."""

    def __init__(self, helper: Path | None) -> None:
        self._evict: Any = None
        if helper is not None:
            try:
                self._evict = ctypes.CDLL(str(helper)).hj_evict
            except (OSError, AttributeError):
                self._evict = None
        if self._evict is not None:
            self._evict.restype = ctypes.c_int
            self._evict.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        self._sweep: np.ndarray | None = None
        self.lines_evicted = 0

    @property
    def uses_helper(self) -> bool:
        return self._evict is not None

    def evict(self, ranges: list[tuple[int, int]]) -> None:
        if self._evict is not None:
            for address, nbytes in ranges:
                if not self._evict(address, nbytes):
                    self._evict = None  # no eviction instruction on this CPU: sweep from now on
                    break
                self.lines_evicted += -(-(address % _LINE + nbytes) // _LINE)
            else:
                return
        self._sweep_cache()

    def _sweep_cache(self) -> None:
        if self._sweep is None:
            self._sweep = np.zeros(2 * last_level_cache_bytes() // 8, dtype=np.int64)
        self._sweep += 1  # writes every line: the previous contents of the cache are evicted


class HostAccess:
    """The parent's side of the host device for one phase: an arena big enough for its largest
    case, the current case's buffers laid out in it."""

    name = "host"
    shares_fds = False

    def __init__(self, arena_bytes: int, evict_helper: Path | None) -> None:
        self.arena = Arena(arena_bytes)
        self.evictor = Evictor(evict_helper)
        self._placements: dict[str, Placement] = {}

    # ---- a case's buffers --------------------------------------------------------------------
    @staticmethod
    def arena_bytes(cases: list[list[BufferSpec]]) -> int:
        return max((host_layout(specs)[1] for specs in cases), default=0)

    def case_message(self, specs: list[BufferSpec]) -> list[dict[str, Any]]:
        placements, _ = host_layout(specs)
        self._placements = {p.spec.name: p for p in placements}
        return [{"name": p.spec.name, "offset": p.offset, "nbytes": p.spec.nbytes} for p in placements]

    def attach(self, handles: list[bytes], fds: tuple[int, ...] = ()) -> None:
        """The child mapped the arena (the host device shares no handles). Every byte outside the
        buffers becomes canary."""
        self.arena.bytes[:] = CANARY_BYTE

    def address(self, name: str) -> int:
        """Where a buffer starts in this process's mapping (the bare loop of bench/agent.py)."""
        return self.arena.address(self._placements[name].offset)

    def _view(self, name: str) -> np.ndarray:
        placement = self._placements[name]
        spec = placement.spec
        return self.arena.bytes[placement.offset: placement.offset + spec.nbytes].view(spec.dtype)

    def write(self, name: str, values: np.ndarray) -> None:
        self._view(name)[:] = values.reshape(-1)

    def read(self, name: str) -> np.ndarray:
        spec = self._placements[name].spec
        return self._view(name).reshape(spec.shape).copy()

    def write_elements(self, name: str, indices: np.ndarray, values: np.ndarray) -> None:
        self._view(name)[indices] = values

    def read_elements(self, name: str, indices: np.ndarray) -> np.ndarray:
        return self._view(name)[indices].copy()

    def poison(self, name: str) -> None:
        spec = self._placements[name].spec
        self.arena.bytes[self._placements[name].offset: self._placements[name].offset + spec.nbytes] = \
            poison_byte(spec.dtype)

    def check_guards(self) -> str | None:
        for placement in self._placements.values():
            spec, start = placement.spec, placement.offset
            end = start + spec.nbytes
            for zone_start, zone_end in ((start - LEAD_BYTES, start), (end, end + TRAIL_BYTES)):
                found = corrupted_range(self.arena.bytes[zone_start:zone_end])
                if found:
                    first, last = (zone_start + found[0] - start, zone_start + found[1] - start)
                    return describe_overrun(spec.name, spec.nbytes, spec.dtype.itemsize, first, last)
        return None

    # ---- caches ------------------------------------------------------------------------------
    def evict(self) -> None:
        self.evictor.evict([(self.arena.address(p.offset), p.spec.nbytes) for p in self._placements.values()])

    def settle(self) -> None:
        return None  # the arena's writes are plain stores, visible to the child when they return

    def flush_bytes(self) -> int:
        if self.evictor.uses_helper:
            return sum(p.spec.nbytes for p in self._placements.values())
        return 2 * last_level_cache_bytes()

    def release(self) -> None:
        self._placements = {}

    def close(self) -> None:
        self._placements = {}
        self.arena.close()

"""Every memory access of Triton's interpreter checked against the judge's buffers.

The interpreter turns `tl.load` / `tl.store` / the atomics into one call of its C helper
(`triton.runtime.interpreter._interpreter`: load, store, atomic_rmw, atomic_cas) with a NumPy
array of raw addresses and the mask; the helper dereferences every unmasked address as it is, so
a mask off by one reads or writes whatever lies beside the buffer, or faults. `guard()` puts a
checker in front of the helper: each unmasked address, with the size of its element, must lie
inside one of the case's buffers; otherwise the access is refused before it happens, with the
buffer it missed and by how much, as the emulated device reports it (agent/emulator/README.md).

It gives a good sentence, not safety: the user's code runs in this process and could reach
memory without the interpreter. The guard zones the parent checks after every call, and the
sandbox, are what hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


class OutOfBounds(Exception):
    """A load or store of an unmasked element outside every buffer."""


@dataclass(frozen=True)
class Region:
    name: str
    start: int
    nbytes: int
    itemsize: int


class BufferMap:
    """The case's buffers, sorted by address, for a vectorised lookup of many addresses at once."""

    def __init__(self, regions: list[Region]) -> None:
        self.regions = sorted(regions, key=lambda r: r.start)
        self._starts = np.array([r.start for r in self.regions], dtype=np.uint64)
        self._ends = np.array([r.start + r.nbytes for r in self.regions], dtype=np.uint64)

    def check(self, what: str, addresses: np.ndarray, mask: np.ndarray | None, width: int) -> None:
        """Raise OutOfBounds naming the buffer when an unmasked `width`-byte access leaves them all."""
        ptrs = np.asarray(addresses, dtype=np.uint64).ravel()
        if mask is not None:
            ptrs = ptrs[np.broadcast_to(np.asarray(mask, dtype=bool), np.shape(addresses)).ravel()]
        if ptrs.size == 0:
            return
        if self._within_one(int(ptrs.min()), int(ptrs.max()), width):
            return  # the usual tile: every element between the lowest and highest lies in one buffer
        self._check_each(what, ptrs, width)

    def _within_one(self, low: int, high: int, width: int) -> bool:
        index = int(np.searchsorted(self._starts, np.uint64(low), side="right")) - 1
        return index >= 0 and high + width <= int(self._ends[index])

    def _check_each(self, what: str, ptrs: np.ndarray, width: int) -> None:
        index = np.searchsorted(self._starts, ptrs, side="right").astype(np.int64) - 1
        inside = index >= 0
        safe = np.where(inside, index, 0)
        inside &= ptrs + np.uint64(width) <= self._ends[safe] if len(self.regions) else np.zeros_like(inside)
        if inside.all():
            return
        bad = int(ptrs[int(np.argmin(inside))])
        raise OutOfBounds(self.describe(what, bad, width))

    def describe(self, what: str, address: int, width: int) -> str:
        if not self.regions:
            return f"out-of-bounds {what} at address {address:#x}: the kernel has no buffer"
        # The buffer it missed: the one it runs past the end of, or the one it comes before.
        below = [r for r in self.regions if r.start <= address]
        region = below[-1] if below else self.regions[0]
        offset = address - region.start
        elements = region.nbytes // region.itemsize
        count = f"{elements} element{'s' if elements != 1 else ''}"
        if offset < 0:
            where = f"{-offset} bytes before its start"
        else:
            past = offset + width - region.nbytes
            beyond = -(-past // region.itemsize)
            where = f"byte {offset}, {beyond} element{'s' if beyond != 1 else ''} past the end"
        return (f"out-of-bounds {what} of buffer '{region.name}' ({count}, {region.nbytes} bytes) at "
                f"{where}: an unmasked element of tl.load/tl.store outside the buffer (check the mask)")


class _GuardedHelper:
    """Stands for the interpreter's C helper: checks, then calls it."""

    def __init__(self, helper: Any, buffers: BufferMap) -> None:
        self._helper, self.buffers = helper, buffers

    def __getattr__(self, name: str) -> Any:
        return getattr(self._helper, name)

    def load(self, ptrs: np.ndarray, mask: np.ndarray, other: np.ndarray, dtype: np.dtype) -> Any:
        self.buffers.check("read", ptrs, mask, np.dtype(dtype).itemsize)
        return self._helper.load(ptrs, mask, other, dtype)

    def store(self, ptrs: np.ndarray, value: np.ndarray, mask: np.ndarray) -> Any:
        self.buffers.check("write", ptrs, mask, np.asarray(value).dtype.itemsize)
        return self._helper.store(ptrs, value, mask)

    def atomic_rmw(self, op: Any, ptrs: np.ndarray, value: np.ndarray, mask: np.ndarray, sem: Any) -> Any:
        self.buffers.check("atomic", ptrs, mask, np.asarray(value).dtype.itemsize)
        return self._helper.atomic_rmw(op, ptrs, value, mask, sem)

    def atomic_cas(self, ptrs: np.ndarray, cmp: np.ndarray, value: np.ndarray, sem: Any) -> Any:
        self.buffers.check("atomic", ptrs, None, np.asarray(value).dtype.itemsize)
        return self._helper.atomic_cas(ptrs, cmp, value, sem)


def guard(buffers: BufferMap) -> None:
    """From now on every access of the interpreter is checked against `buffers` (a new case
    replaces the map)."""
    from triton.runtime import interpreter

    current = interpreter._interpreter
    helper = current._helper if isinstance(current, _GuardedHelper) else current
    interpreter._interpreter = _GuardedHelper(helper, buffers)  # type: ignore[attr-defined]

"""Memory the parent shares with the child: a sealed memfd the parent makes, sizes and maps itself.

The child gets the file descriptor and maps it too; it can write into it but never resize it
(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), so nothing it does makes the parent's mapping fault.
The parent never reads a byte of it in place for a verdict: outputs are copied out first, so a
thread of the child that keeps writing cannot change what is being compared.

On the host device the kernel's buffers live here, laid out by the parent, each between two guard
zones of canary bytes (a write past a buffer's end lands in them and is named after the call).
On the emulated device the arena is the device memory the emulator carves its allocations from.
"""

from __future__ import annotations

import fcntl
import math
import mmap
import os
from dataclasses import dataclass

import numpy as np

from agent.problems.dtypes import is_float_dtype

PAGE = mmap.PAGESIZE
LEAD_BYTES = 4096  # canary right before each buffer
TRAIL_BYTES = 64 * 1024  # canary right after each buffer: an overrun by a large stride still lands here
# Buffers start this far apart modulo a page (five cache lines per buffer, eight buffers round):
# buffers that all start on a page boundary compete for the same cache sets.
STAGGER = 5 * 64
CANARY_BYTE = 0xCB


@dataclass(frozen=True)
class BufferSpec:
    name: str
    dtype: np.dtype
    shape: tuple[int, ...]
    output: bool

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    @property
    def size(self) -> int:
        return math.prod(self.shape)


def poison_byte(dtype: np.dtype) -> int:
    """Every byte of an output is this before a call: all-ones is NaN for floats (half, bfloat16 and
    the OCP fp8 formats too), 0x80 the one NaN of MI300X's fp8 (the `fnuz` formats), 0xA5 repeated a
    huge or negative integer. A poisoned element the kernel never wrote cannot pass."""
    if dtype.name.endswith("fnuz"):
        return 0x80
    return 0xFF if is_float_dtype(dtype) else 0xA5


def is_poison(values: np.ndarray) -> np.ndarray:
    """Which elements still hold the poison bytes exactly."""
    raw = np.ascontiguousarray(values).view(np.uint8).reshape(values.size, values.dtype.itemsize)
    return np.all(raw == poison_byte(values.dtype), axis=1)


class Arena:
    """A sealed memfd of a fixed size, mapped read-write by this process."""

    def __init__(self, size: int, name: str = "hipjudge-arena") -> None:
        self.size = max(PAGE, -(-size // PAGE) * PAGE)
        self.fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(self.fd, self.size)
            fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
            self.map = mmap.mmap(self.fd, self.size, flags=mmap.MAP_SHARED)
        except BaseException:
            os.close(self.fd)
            raise
        self.bytes = np.frombuffer(self.map, dtype=np.uint8)

    def address(self, offset: int = 0) -> int:
        return int(self.bytes.ctypes.data) + offset

    def close(self) -> None:
        del self.bytes
        try:
            self.map.close()
        except BufferError:
            pass  # a view of it is still alive somewhere: the mapping goes with the last one
        finally:
            os.close(self.fd)


@dataclass(frozen=True)
class Placement:
    spec: BufferSpec
    offset: int  # of the buffer's first byte in the arena


def host_layout(specs: list[BufferSpec]) -> tuple[list[Placement], int]:
    """Where each buffer goes, and the arena size: a page-aligned start plus the buffer's stagger,
    a leading and a trailing guard zone that belong to this buffer alone."""
    placements = []
    cursor = 0
    for index, spec in enumerate(specs):
        start = -(-(cursor + LEAD_BYTES) // PAGE) * PAGE + (index % 8) * STAGGER
        placements.append(Placement(spec, start))
        cursor = start + max(spec.nbytes, 1) + TRAIL_BYTES
    return placements, cursor


def describe_overrun(name: str, nbytes: int, itemsize: int, first: int, last: int) -> str:
    """A sentence for corrupted guard bytes at offsets first..last relative to the buffer's start."""
    if first >= nbytes:
        past = last - nbytes + 1
        return (f"out-of-bounds write past the end of buffer '{name}' ({nbytes} bytes): bytes {first} to {last} "
                f"were written, up to {_count(past, 'byte')} ({_count(-(-past // itemsize), 'element')}) past the end")
    return (f"out-of-bounds write before the start of buffer '{name}' ({nbytes} bytes): "
            f"{_count(-first, 'byte')} before its first element were written")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def corrupted_range(zone: np.ndarray) -> tuple[int, int] | None:
    """(first, last) index in `zone` whose byte is not the canary, or None."""
    bad = np.flatnonzero(zone != CANARY_BYTE)
    return (int(bad[0]), int(bad[-1])) if bad.size else None

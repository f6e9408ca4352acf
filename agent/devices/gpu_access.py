"""A GPU device (hip, cuda, or the emulator) as the trusted parent sees it: the child's buffers,
opened from their IPC handles in the parent's own context.

On real GPUs each buffer is allocated with a guard zone behind it (the child over-allocates by
GUARD_BYTES); the parent fills it with canary bytes and checks it after every call, so a kernel
that writes past a buffer's end is named. The emulated device allocates exactly: its runtime puts
a guard page right behind each buffer and reports the first read or write past the end itself,
naming the buffer and the GPU thread, which no canary could.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agent.devices.base import DeviceError
from agent.devices.gpu import GpuDevice
from agent.devices.memory import CANARY_BYTE, PAGE, Arena, BufferSpec, corrupted_range, describe_overrun, poison_byte

GUARD_BYTES = 64 * 1024
# The emulator's arena: every allocation takes whole pages plus two guard pages, and the kernel may
# allocate scratch memory of its own (a reduction's partial sums) beside the case's buffers.
EMULATED_SCRATCH_BYTES = 64 * 1024 * 1024


class GpuAccess:
    def __init__(self, device: GpuDevice, *, arena: Arena | None = None, guard_bytes: int | None = None) -> None:
        self.device = device
        self.name = "emulated" if device.emulated else device.name
        self.arena = arena
        self.guard = (0 if device.emulated else GUARD_BYTES) if guard_bytes is None else guard_bytes
        self._specs: dict[str, BufferSpec] = {}
        self._ptrs: dict[str, int] = {}
        if arena is not None:
            device.attach_arena(arena.fd)

    @property
    def shares_fds(self) -> bool:
        return self.device.shares_fds

    @staticmethod
    def arena_bytes(cases: list[list[BufferSpec]], guard_bytes: int = 0) -> int:
        def pages(spec: BufferSpec) -> int:
            return (-(-(spec.nbytes + guard_bytes) // PAGE) + 2) * PAGE

        largest = max((sum(pages(s) for s in specs) for specs in cases), default=0)
        return 2 * largest + EMULATED_SCRATCH_BYTES

    def case_message(self, specs: list[BufferSpec]) -> list[dict[str, Any]]:
        self._specs = {s.name: s for s in specs}
        return [{"name": s.name, "nbytes": s.nbytes, "alloc": s.nbytes + self.guard, "element": s.dtype.itemsize}
                for s in specs]

    def attach(self, handles: list[bytes], fds: tuple[int, ...] = ()) -> None:
        """Open the child's handles (or map the fds a real CUDA GPU shares them by); refuse one
        that names too little memory (the parent would otherwise write past it in its own context)."""
        shared = len(fds) if self.device.shares_fds else len(handles)
        if shared != len(self._specs) or (fds and not self.device.shares_fds):
            raise DeviceError(f"{shared} buffers shared where {len(self._specs)} were asked for")
        for k, spec in enumerate(self._specs.values()):
            if self.device.shares_fds:  # an allocation smaller than asked for fails to map
                ptr = self.device.open_fd(fds[k], spec.nbytes + self.guard)
            else:
                ptr, size = self.device.open_handle(handles[k])
                if size < spec.nbytes + self.guard:
                    raise DeviceError(f"the buffer shared for {spec.name} holds {size} bytes, not {spec.nbytes}")
            self._ptrs[spec.name] = ptr
            if self.guard:
                self.device.memset(ptr + spec.nbytes, CANARY_BYTE, self.guard)

    def write(self, name: str, values: np.ndarray) -> None:
        data = np.ascontiguousarray(values)
        self.device.upload(self._ptrs[name], data.ctypes.data, data.nbytes)

    def read(self, name: str) -> np.ndarray:
        spec = self._specs[name]
        out = np.empty(spec.shape, dtype=spec.dtype)
        self.device.download(self._ptrs[name], out.ctypes.data, out.nbytes)
        return out

    def write_elements(self, name: str, indices: np.ndarray, values: np.ndarray) -> None:
        itemsize = self._specs[name].dtype.itemsize
        data = np.ascontiguousarray(values, dtype=self._specs[name].dtype)
        for k, index in enumerate(indices):
            self.device.upload(self._ptrs[name] + int(index) * itemsize, data.ctypes.data + k * itemsize, itemsize)

    def read_elements(self, name: str, indices: np.ndarray) -> np.ndarray:
        spec = self._specs[name]
        out = np.empty(len(indices), dtype=spec.dtype)
        for k, index in enumerate(indices):
            self.device.download(self._ptrs[name] + int(index) * spec.dtype.itemsize,
                                 out.ctypes.data + k * spec.dtype.itemsize, spec.dtype.itemsize)
        return out

    def poison(self, name: str) -> None:
        spec = self._specs[name]
        self.device.memset(self._ptrs[name], poison_byte(spec.dtype), spec.nbytes)

    def check_guards(self) -> str | None:
        if not self.guard:
            return None
        zone = np.empty(self.guard, dtype=np.uint8)
        for name, spec in self._specs.items():
            self.device.download(self._ptrs[name] + spec.nbytes, zone.ctypes.data, self.guard)
            found = corrupted_range(zone)
            if found:
                return describe_overrun(name, spec.nbytes, spec.dtype.itemsize, spec.nbytes + found[0],
                                        spec.nbytes + found[1])
        return None

    def evict(self) -> None:
        if not self.device.emulated:  # the emulator has no device cache; its times mean nothing anyway
            self.device.flush_cache()

    def settle(self) -> None:
        """A real GPU runs the parent's memsets (poison, canaries) and copies from pageable memory
        after the calls return, in the parent's context, which the GPU orders with nothing the
        child does: without a wait here the poison landed on a finished output now and then (seen on
        an H100 with 8 jobs at once) and a kernel could read inputs not yet written. The emulator's
        writes are plain stores, done when they return."""
        if not self.device.emulated:
            self.device.wait_idle()

    def flush_bytes(self) -> int:
        return 0 if self.device.emulated else self.device.flush_bytes()

    def release(self) -> None:
        self.device.close_handles()
        self._ptrs = {}
        self._specs = {}

    def close(self) -> None:
        self.release()
        self.device.free_all()
        if self.arena is not None:
            self.device.detach_arena(self.arena.fd)
            self.arena.close()

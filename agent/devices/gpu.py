"""HIP and CUDA through ctypes: the runtime APIs are the same C calls with another prefix.

The emulated device (agent/emulator's libhjemu.so) exports the same calls with either prefix, so
this one binding drives a real MI300X, a real NVIDIA GPU and the CPU emulator alike.

Both processes of a job use it. The sandboxed child allocates the kernel's buffers, exports an IPC
handle for each, times the call with events and reads launch errors. The trusted parent opens
those handles in its own context and, through them, writes the inputs, poisons the outputs, checks
guard bytes and reads the results; it also flushes the GPU's caches from its own context, so the
child cannot skip the flush. No numpy here: the child imports this module and nothing heavy.
"""

from __future__ import annotations

import ctypes
import os
import struct
from collections.abc import Callable
from typing import Any

from agent.devices.base import DeviceError
from agent.devices.cuda_vmm import VmmMemory

_MEMCPY_HOST_TO_DEVICE = 1
_MEMCPY_DEVICE_TO_HOST = 2
_IPC_LAZY_PEER_ACCESS = 1  # hipIpcMemLazyEnablePeerAccess / cudaIpcMemLazyEnablePeerAccess
IPC_HANDLE_BYTES = 64
_CUDA_ATTR_L2_CACHE_SIZE = 89  # cudaDevAttrL2CacheSize, stable across CUDA releases
# MI300X has a 256 MB Infinity Cache that no HIP attribute reports: flush twice that by default.
_HIP_FLUSH_BYTES = int(os.environ.get("HIPJUDGE_HIP_FLUSH_MIB", "512")) * 1024 * 1024

_LIBRARIES = {
    "hip": ("libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"),
    "cuda": ("libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so",
             "/usr/local/cuda/lib64/libcudart.so"),
}
_LOADED: dict[tuple[str, int], ctypes.CDLL] = {}


class IpcHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * IPC_HANDLE_BYTES)]


def load_runtime(kind: str, path: str | None = None, mode: int = ctypes.RTLD_GLOBAL) -> ctypes.CDLL:
    """The runtime library: `path` (the emulator's build) or the first system library that loads."""
    errors = []
    for name in (path,) if path else _LIBRARIES[kind]:
        key = (name, mode)
        if key in _LOADED:
            return _LOADED[key]
        try:
            _LOADED[key] = ctypes.CDLL(name, mode=mode)
            return _LOADED[key]
        except OSError as exc:
            errors.append(str(exc))
    raise DeviceError(f"cannot load the {kind} runtime: {'; '.join(errors[-2:])}")


class GpuDevice:
    """`api` is the prefix ("hip" or "cuda"); `emulated` marks libhjemu, whose IPC handles carry
    their allocation's size and whose buffers can be named in fault messages."""

    def __init__(self, api: str, library: ctypes.CDLL, *, emulated: bool = False) -> None:
        self.name = api
        self.emulated = emulated
        self._p = api
        self._rt = library
        # getattr, not CDLL[...]: item access makes a new function object each time, so a restype
        # set on one would be lost on the next lookup.
        self._fn("GetErrorString").restype = ctypes.c_char_p
        self._buffers: list[int] = []
        self._opened: list[int] = []
        self._flush_ptr: int | None = None
        self._flush_size: int | None = None
        self._flush_value = 0
        self._call("SetDevice", ctypes.c_int(0))
        self._events: tuple[ctypes.c_void_p, ctypes.c_void_p] | None = None
        # A real CUDA GPU shares buffers as file descriptors (agent/devices/cuda_vmm.py has why): they
        # cross the sandbox's PID namespace by design. HIP and the emulator keep IPC handles.
        self.vmm: VmmMemory | None = None
        if api == "cuda" and not emulated:
            self._call("Free", ctypes.c_void_p(0))  # the primary context exists before the driver API runs
            self.vmm = VmmMemory(load_runtime("cuda", "libcuda.so.1"), lambda: self._call("SetDevice", ctypes.c_int(0)))

    @property
    def shares_fds(self) -> bool:
        return self.vmm is not None

    # ---- plumbing ----------------------------------------------------------------------------
    def _fn(self, name: str) -> Any:
        return getattr(self._rt, f"{self._p}{name}")

    def _call(self, name: str, *args: object) -> None:
        code = self._fn(name)(*args)
        if code != 0:
            raise DeviceError(f"{self._p}{name} failed: {self._error_string(code)}")

    def _error_string(self, code: int) -> str:
        text = self._fn("GetErrorString")(code)
        return f"{text.decode(errors='replace') if text else 'unknown error'} (code {code})"

    def _event(self) -> ctypes.c_void_p:
        event = ctypes.c_void_p()
        self._call("EventCreate", ctypes.byref(event))
        return event

    # ---- the child's side --------------------------------------------------------------------
    def alloc(self, nbytes: int, name: str = "", element_bytes: int = 0) -> int:
        if self.vmm is not None:
            return self.vmm.allocate(nbytes)
        ptr = ctypes.c_void_p()
        self._call("Malloc", ctypes.byref(ptr), ctypes.c_size_t(max(nbytes, 1)))
        assert ptr.value is not None
        self._buffers.append(ptr.value)
        if self.emulated and name:  # fault messages name the buffer and count its elements
            self._rt.hjemuNameBuffer(ctypes.c_void_p(ptr.value), name.encode())
            self._rt.hjemuSetBufferElementSize(ctypes.c_void_p(ptr.value), ctypes.c_size_t(element_bytes))
        return ptr.value

    def free_all(self) -> None:
        for ptr in self._buffers:
            self._fn("Free")(ctypes.c_void_p(ptr))
        self._buffers.clear()
        if self.vmm is not None:
            self.vmm.free_all()
        self._flush_ptr = None

    def share(self, ptr: int) -> tuple[bytes, int | None]:
        """What the parent needs to open a buffer: an IPC handle, or (a real CUDA GPU) an empty
        handle and a new file descriptor that the caller passes on and closes."""
        if self.vmm is not None:
            return bytes(IPC_HANDLE_BYTES), self.vmm.export(ptr)
        handle = IpcHandle()
        self._call("IpcGetMemHandle", ctypes.byref(handle), ctypes.c_void_p(ptr))
        return bytes(handle), None

    def synchronize(self) -> None:
        # A launch error (bad grid) shows in GetLastError, a fault inside the kernel at synchronize.
        launch = self._fn("GetLastError")()
        if launch != 0:
            raise DeviceError(f"kernel launch failed: {self._error_string(launch)}")
        self._call("DeviceSynchronize")

    def timed_call(self, fn: Callable[[], None]) -> float:
        """Events on the default stream around fn; work on another stream is not in them, which
        the parent sees: its own clock around the call then runs far ahead of the events."""
        if self._events is None:
            self._events = (self._event(), self._event())
        start, stop = self._events
        self._call("EventRecord", start, ctypes.c_void_p(0))
        fn()
        self._call("EventRecord", stop, ctypes.c_void_p(0))
        self._call("EventSynchronize", stop)
        elapsed = ctypes.c_float()
        self._call("EventElapsedTime", ctypes.byref(elapsed), start, stop)
        return float(elapsed.value)

    # ---- the parent's side -------------------------------------------------------------------
    def attach_arena(self, fd: int) -> None:
        """The emulator's IPC handles point into a memfd; the parent maps the same one."""
        if self._rt.hjemuAttachArena(ctypes.c_int(fd)) != 0:
            raise DeviceError("the emulator could not map the shared device memory")

    def detach_arena(self, fd: int) -> None:
        """Unmap a child's arena once its phase is done (the parent may drive two children at once)."""
        self._rt.hjemuDetachArena(ctypes.c_int(fd))

    def open_handle(self, handle: bytes) -> tuple[int, int]:
        """(pointer in this process, size of the allocation it names)."""
        if len(handle) != IPC_HANDLE_BYTES:
            raise DeviceError("an IPC handle of the wrong size")
        ptr = ctypes.c_void_p()
        self._call("IpcOpenMemHandle", ctypes.byref(ptr), IpcHandle.from_buffer_copy(handle),
                   ctypes.c_uint(_IPC_LAZY_PEER_ACCESS))
        assert ptr.value is not None
        self._opened.append(ptr.value)
        return ptr.value, self._allocation_size(ptr.value, handle)

    def _allocation_size(self, ptr: int, handle: bytes) -> int:
        if self.emulated:  # magic, offset, bytes: the runtime checked them against the arena
            return int(struct.unpack_from("<Q", handle, 16)[0])
        base, size = ctypes.c_void_p(), ctypes.c_size_t()
        if self._p == "hip":
            self._call("MemGetAddressRange", ctypes.byref(base), ctypes.byref(size), ctypes.c_void_p(ptr))
        else:  # the CUDA runtime has no such call; the driver API does
            driver = load_runtime("cuda", "libcuda.so.1")
            code = driver.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ctypes.c_void_p(ptr))
            if code != 0:
                raise DeviceError(f"cuMemGetAddressRange failed (code {code})")
        return int(size.value) - (ptr - int(base.value or 0))

    def open_fd(self, fd: int, nbytes: int) -> int:
        """A child's buffer shared as a file descriptor, `nbytes` of it mapped in this process."""
        assert self.vmm is not None
        ptr = self.vmm.import_fd(fd, nbytes)
        self._opened.append(ptr)
        return ptr

    def close_handles(self) -> None:
        for ptr in self._opened:
            if self.vmm is not None:
                self.vmm.free(ptr)
            else:
                self._fn("IpcCloseMemHandle")(ctypes.c_void_p(ptr))
        self._opened.clear()

    def upload(self, ptr: int, address: int, nbytes: int) -> None:
        self._call("Memcpy", ctypes.c_void_p(ptr), ctypes.c_void_p(address), ctypes.c_size_t(nbytes),
                   ctypes.c_int(_MEMCPY_HOST_TO_DEVICE))

    def download(self, ptr: int, address: int, nbytes: int) -> None:
        self._call("Memcpy", ctypes.c_void_p(address), ctypes.c_void_p(ptr), ctypes.c_size_t(nbytes),
                   ctypes.c_int(_MEMCPY_DEVICE_TO_HOST))

    def memset(self, ptr: int, byte: int, nbytes: int) -> None:
        self._call("Memset", ctypes.c_void_p(ptr), ctypes.c_int(byte), ctypes.c_size_t(nbytes))

    def wait_idle(self) -> None:
        """Until this process's work on the GPU is done."""
        self._call("DeviceSynchronize")

    def flush_bytes(self) -> int:
        if self._flush_size is None:
            if self.name == "hip":
                self._flush_size = _HIP_FLUSH_BYTES
            else:
                l2 = ctypes.c_int()
                self._call("DeviceGetAttribute", ctypes.byref(l2), ctypes.c_int(_CUDA_ATTR_L2_CACHE_SIZE),
                           ctypes.c_int(0))
                self._flush_size = max(2 * l2.value, 64 * 1024 * 1024)
        return self._flush_size

    def flush_cache(self) -> None:
        """Write a buffer larger than the GPU's last-level cache, and wait for it."""
        if self._flush_ptr is None:
            self._flush_ptr = self.alloc(self.flush_bytes())
        self._flush_value ^= 0x5A  # a new value each time: the memset really writes every line
        self._call("MemsetAsync", ctypes.c_void_p(self._flush_ptr), ctypes.c_int(self._flush_value),
                   ctypes.c_size_t(self.flush_bytes()), ctypes.c_void_p(0))
        self._call("DeviceSynchronize")

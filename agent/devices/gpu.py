"""HIP and CUDA through ctypes: the runtime APIs are the same C calls with another prefix.

Only the calls the harness needs are bound (malloc/free, memcpy, memset, synchronize, errors,
events, one attribute). No C extension and no Python GPU package: the agent ships as plain files.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable

import numpy as np

from agent.devices.base import DeviceError

_MEMCPY_HOST_TO_DEVICE = 1
_MEMCPY_DEVICE_TO_HOST = 2
_CUDA_ATTR_L2_CACHE_SIZE = 89  # cudaDevAttrL2CacheSize, stable across CUDA releases
# MI300X has a 256 MB Infinity Cache that no HIP attribute reports: flush twice that by default.
_HIP_FLUSH_BYTES = int(os.environ.get("HIPJUDGE_HIP_FLUSH_MIB", "512")) * 1024 * 1024

_LIBRARIES = {
    "hip": ("libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"),
    "cuda": ("libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so",
             "/usr/local/cuda/lib64/libcudart.so"),
}


def load_runtime(kind: str) -> ctypes.CDLL:
    errors = []
    for name in _LIBRARIES[kind]:
        try:
            return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError as exc:
            errors.append(str(exc))
    raise DeviceError(f"cannot load the {kind} runtime: {'; '.join(errors[-2:])}")


class GpuDevice:
    def __init__(self, kind: str) -> None:
        self.name = kind
        self._p = "hip" if kind == "hip" else "cuda"
        self._rt = load_runtime(kind)
        self._rt[f"{self._p}GetErrorString"].restype = ctypes.c_char_p
        self._buffers: list[int] = []
        self._flush_ptr: int | None = None
        self._flush_size: int | None = None
        self._flush_value = 0
        self._call("SetDevice", ctypes.c_int(0))
        self._start, self._stop = self._event(), self._event()

    # ---- plumbing ----------------------------------------------------------------------------
    def _call(self, name: str, *args: object) -> None:
        code = self._rt[f"{self._p}{name}"](*args)
        if code != 0:
            raise DeviceError(f"{self._p}{name} failed: {self._error_string(code)}")

    def _error_string(self, code: int) -> str:
        text = self._rt[f"{self._p}GetErrorString"](code)
        return f"{text.decode() if text else 'unknown error'} (code {code})"

    def _event(self) -> ctypes.c_void_p:
        event = ctypes.c_void_p()
        self._call("EventCreate", ctypes.byref(event))
        return event

    # ---- the Device interface ----------------------------------------------------------------
    def alloc(self, nbytes: int) -> int:
        ptr = ctypes.c_void_p()
        self._call("Malloc", ctypes.byref(ptr), ctypes.c_size_t(max(nbytes, 1)))
        assert ptr.value is not None
        self._buffers.append(ptr.value)
        return ptr.value

    def free_all(self) -> None:
        for ptr in self._buffers:
            self._rt[f"{self._p}Free"](ctypes.c_void_p(ptr))
        self._buffers.clear()
        self._flush_ptr = None

    def upload(self, ptr: int, host: np.ndarray) -> None:
        self._call("Memcpy", ctypes.c_void_p(ptr), ctypes.c_void_p(host.ctypes.data),
                   ctypes.c_size_t(host.nbytes), ctypes.c_int(_MEMCPY_HOST_TO_DEVICE))

    def download(self, ptr: int, host: np.ndarray) -> None:
        self._call("Memcpy", ctypes.c_void_p(host.ctypes.data), ctypes.c_void_p(ptr),
                   ctypes.c_size_t(host.nbytes), ctypes.c_int(_MEMCPY_DEVICE_TO_HOST))

    def synchronize(self) -> None:
        # A launch error (bad grid) shows in GetLastError, a fault inside the kernel at synchronize.
        launch = self._rt[f"{self._p}GetLastError"]()
        if launch != 0:
            raise DeviceError(f"kernel launch failed: {self._error_string(launch)}")
        self._call("DeviceSynchronize")

    def timed_call(self, fn: Callable[[], None]) -> float:
        # Events on the default stream: work the kernel puts on another stream is not timed, which
        # the parent catches by comparing this time with the wall clock around the call.
        self._call("EventRecord", self._start, ctypes.c_void_p(0))
        fn()
        self._call("EventRecord", self._stop, ctypes.c_void_p(0))
        self._call("EventSynchronize", self._stop)
        elapsed = ctypes.c_float()
        self._call("EventElapsedTime", ctypes.byref(elapsed), self._start, self._stop)
        return float(elapsed.value)

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
        if self._flush_ptr is None:
            self._flush_ptr = self.alloc(self.flush_bytes())
        self._flush_value ^= 0x5A  # a new value each time: the memset really writes every line
        self._call("MemsetAsync", ctypes.c_void_p(self._flush_ptr), ctypes.c_int(self._flush_value),
                   ctypes.c_size_t(self.flush_bytes()), ctypes.c_void_p(0))

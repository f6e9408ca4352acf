"""CUDA memory that the sandboxed child shares with the parent as file descriptors.

Legacy CUDA IPC handles (cudaIpcGetMemHandle) carry the exporting process's identity, and NVIDIA
documents no use across PID namespaces (UCX refuses it), while every sandbox gives the child a PID
namespace of its own. The driver's virtual memory management API exports an allocation as a file
descriptor instead: the child passes it over the control socket (SCM_RIGHTS) and the parent maps
it in its own context, whatever namespaces lie between them.

Seen on an H100 (driver 580.159, CUDA 13.0, 2026-11-27; bench/cuda_ipc_probe.py, and
bench/gpu_device.sh for whole jobs): with the child under `bwrap --unshare-all --unshare-user
--disable-userns --cap-drop ALL`, the parent read the bytes the child wrote; mapping more than the
child allocated failed with CUDA_ERROR_NOT_SUPPORTED, so a child that shares too little makes the
parent's mapping fail rather than reach past it. (Legacy handles did cross a bare --unshare-pid on
that driver; nothing promises it.) An fd is also a capability the child hands to one process,
where a legacy handle is 64 bytes that any process of the machine which learns them may try to
open. The parent maps exactly the size it asked for, rounded up to the allocation granularity as
the child's allocation was.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

from agent.devices.base import DeviceError

_HANDLE_POSIX_FD = 1  # CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
_ALLOCATION_PINNED = 1  # CU_MEM_ALLOCATION_TYPE_PINNED
_LOCATION_DEVICE = 1  # CU_MEM_LOCATION_TYPE_DEVICE
_ACCESS_READ_WRITE = 3  # CU_MEM_ACCESS_FLAGS_PROT_READWRITE
_GRANULARITY_MINIMUM = 0


class _AllocationProp(ctypes.Structure):  # CUmemAllocationProp
    _fields_ = [("type", ctypes.c_int), ("handle_types", ctypes.c_int), ("location_type", ctypes.c_int),
                ("location_id", ctypes.c_int), ("win32_metadata", ctypes.c_void_p),
                ("alloc_flags", ctypes.c_ubyte * 8)]


class _AccessDesc(ctypes.Structure):  # CUmemAccessDesc
    _fields_ = [("location_type", ctypes.c_int), ("location_id", ctypes.c_int), ("flags", ctypes.c_int)]


_U64, _SIZE = ctypes.c_uint64, ctypes.c_size_t
_SIGNATURES = {
    "cuMemGetAllocationGranularity": [ctypes.POINTER(_SIZE), ctypes.POINTER(_AllocationProp), ctypes.c_int],
    "cuMemCreate": [ctypes.POINTER(_U64), _SIZE, ctypes.POINTER(_AllocationProp), _U64],
    "cuMemAddressReserve": [ctypes.POINTER(_U64), _SIZE, _SIZE, _U64, _U64],
    "cuMemMap": [_U64, _SIZE, _SIZE, _U64, _U64],
    "cuMemSetAccess": [_U64, _SIZE, ctypes.POINTER(_AccessDesc), _SIZE],
    "cuMemExportToShareableHandle": [ctypes.c_void_p, _U64, ctypes.c_int, _U64],
    "cuMemImportFromShareableHandle": [ctypes.POINTER(_U64), ctypes.c_void_p, ctypes.c_int],
    "cuMemUnmap": [_U64, _SIZE],
    "cuMemAddressFree": [_U64, _SIZE],
    "cuMemRelease": [_U64],
}


class VmmMemory:
    """Allocations of device 0 that can be exported (the child) or imported (the parent) as fds.
    `bind` makes the runtime's primary context current on the calling thread: the driver API
    works on whatever context is current."""

    def __init__(self, driver: ctypes.CDLL, bind: Callable[[], None]) -> None:
        self._cu = driver
        self._bind = bind
        for name, argtypes in _SIGNATURES.items():
            getattr(driver, name).argtypes = argtypes
        self._granularity: int | None = None
        self._mapped: dict[int, tuple[int, int]] = {}  # address -> (size, allocation handle)

    def _call(self, name: str, *args: object) -> None:
        code = getattr(self._cu, name)(*args)
        if code != 0:
            raise DeviceError(f"{name} failed (CUDA driver error {code})")

    @staticmethod
    def _prop() -> _AllocationProp:
        prop = _AllocationProp()
        prop.type, prop.handle_types = _ALLOCATION_PINNED, _HANDLE_POSIX_FD
        prop.location_type, prop.location_id = _LOCATION_DEVICE, 0
        return prop

    def rounded(self, nbytes: int) -> int:
        if self._granularity is None:
            granularity = _SIZE()
            self._call("cuMemGetAllocationGranularity", ctypes.byref(granularity), ctypes.byref(self._prop()),
                       _GRANULARITY_MINIMUM)
            self._granularity = max(int(granularity.value), 1)
        return -(-max(nbytes, 1) // self._granularity) * self._granularity

    def _map(self, handle: int, size: int) -> int:
        address = _U64()
        self._call("cuMemAddressReserve", ctypes.byref(address), size, 0, 0, 0)
        try:
            self._call("cuMemMap", address.value, size, 0, handle, 0)
        except DeviceError:
            self._cu.cuMemAddressFree(address.value, size)
            raise
        access = _AccessDesc(_LOCATION_DEVICE, 0, _ACCESS_READ_WRITE)
        try:
            self._call("cuMemSetAccess", address.value, size, ctypes.byref(access), 1)
        except DeviceError:
            self._cu.cuMemUnmap(address.value, size)
            self._cu.cuMemAddressFree(address.value, size)
            raise
        self._mapped[address.value] = (size, handle)
        return int(address.value)

    def allocate(self, nbytes: int) -> int:
        """The child's buffer: a new allocation, mapped read-write for device 0."""
        self._bind()
        size, handle = self.rounded(nbytes), _U64()
        self._call("cuMemCreate", ctypes.byref(handle), size, ctypes.byref(self._prop()), 0)
        try:
            return self._map(handle.value, size)
        except DeviceError:
            self._cu.cuMemRelease(handle.value)
            raise

    def export(self, address: int) -> int:
        """A new file descriptor for the allocation mapped at `address`; the caller closes it."""
        fd = ctypes.c_int(-1)
        self._call("cuMemExportToShareableHandle", ctypes.byref(fd), self._mapped[address][1], _HANDLE_POSIX_FD, 0)
        return int(fd.value)

    def import_fd(self, fd: int, nbytes: int) -> int:
        """The parent's view of a child's allocation: exactly `nbytes` (rounded up) are mapped, and
        an allocation smaller than that fails to map. The caller still owns (and closes) `fd`."""
        self._bind()
        handle = _U64()
        self._call("cuMemImportFromShareableHandle", ctypes.byref(handle), ctypes.c_void_p(fd), _HANDLE_POSIX_FD)
        try:
            return self._map(handle.value, self.rounded(nbytes))
        except DeviceError:
            self._cu.cuMemRelease(handle.value)
            raise

    def free(self, address: int) -> None:
        size, handle = self._mapped.pop(address)
        self._cu.cuMemUnmap(address, size)
        self._cu.cuMemAddressFree(address, size)
        self._cu.cuMemRelease(handle)

    def free_all(self) -> None:
        for address in list(self._mapped):
            self.free(address)

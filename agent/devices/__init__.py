"""Devices a kernel runs on, as the trusted parent reaches them:

- host: the kernel's buffers in an arena the parent shares (`cpp` submissions);
- hip / cuda: one ctypes binding over libamdhip64 / libcudart, buffers opened from IPC handles;
- emulated-hip / emulated-cuda: the same binding over agent/emulator's libhjemu.so, whose device
  memory is an arena the parent shares (check mode only).
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

from agent.devices.base import DeviceAccess, DeviceError

if TYPE_CHECKING:  # the sandboxed child imports this package: nothing heavy (numpy, pathlib) at run time
    from pathlib import Path

    from agent.devices.memory import BufferSpec

EMULATED_PREFIX = "emulated-"


def open_access(device: str, cases: list[list[BufferSpec]], *, evict_helper: Path | None = None,
                emulator_runtime: Path | None = None) -> DeviceAccess:
    """The parent's access to `device` for a phase whose cases need these buffers."""
    if device == "host":
        from agent.devices.host import HostAccess

        return HostAccess(HostAccess.arena_bytes(cases), evict_helper)
    from agent.devices.gpu import GpuDevice, load_runtime
    from agent.devices.gpu_access import GpuAccess
    from agent.devices.memory import Arena

    if device.startswith(EMULATED_PREFIX):
        if emulator_runtime is None:
            raise DeviceError("the emulator's runtime is not built on this agent")
        api = device.removeprefix(EMULATED_PREFIX)
        library = load_runtime(api, str(emulator_runtime), mode=ctypes.RTLD_LOCAL)
        arena = Arena(GpuAccess.arena_bytes(cases), "hipjudge-emulated-device")
        try:
            return GpuAccess(GpuDevice(api, library, emulated=True), arena=arena)
        except BaseException:
            arena.close()
            raise
    if device in ("hip", "cuda"):
        return GpuAccess(GpuDevice(device, load_runtime(device)))
    raise DeviceError(f"unknown device {device!r}")


__all__ = ["DeviceAccess", "DeviceError", "EMULATED_PREFIX", "open_access"]

"""Devices the harness runs a kernel on. One interface, three implementations:

- host: NumPy-owned buffers, the wall clock (`cpp` submissions);
- hip / cuda: one ctypes binding over libamdhip64 / libcudart (the same C API, another prefix),
  GPU events around the call.
"""

from __future__ import annotations

from pathlib import Path

from agent.devices.base import Device, DeviceError


def open_device(name: str, box: Path | None = None) -> Device:
    """`box` is the job's directory: the host device loads its cache-eviction helper from there."""
    if name == "host":
        from agent.devices.host import HostDevice

        return HostDevice(box)
    if name in ("hip", "cuda"):
        from agent.devices.gpu import GpuDevice

        return GpuDevice(name)
    raise DeviceError(f"unknown device {name!r}")


__all__ = ["Device", "DeviceError", "open_device"]

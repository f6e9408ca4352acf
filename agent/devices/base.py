"""The device interface the in-sandbox harness (agent.child) is written against."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np


class DeviceError(RuntimeError):
    """A device API call failed; the message names the call and the runtime's error."""


class Device(Protocol):
    name: str

    def alloc(self, nbytes: int) -> int: ...

    def free_all(self) -> None: ...

    def upload(self, ptr: int, host: np.ndarray) -> None: ...

    def download(self, ptr: int, host: np.ndarray) -> None: ...

    def synchronize(self) -> None:
        """Wait for all work; raise DeviceError for a fault the kernel caused."""

    def timed_call(self, fn: Callable[[], None]) -> float:
        """Run fn once and return its duration in milliseconds by this device's clock."""

    def flush_cache(self) -> None:
        """Evict the last-level cache so each timed call starts cold."""

    def flush_bytes(self) -> int: ...

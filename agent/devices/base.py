"""What the trusted parent does with a device's memory, whichever device it is (`DeviceAccess`),
and the error every device call raises. Imported by the sandboxed child too: no numpy at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from agent.devices.memory import Arena, BufferSpec


class DeviceError(RuntimeError):
    """A device API call failed; the message names the call and the runtime's error."""


class DeviceAccess(Protocol):
    """The parent's hands on the buffers of the current case (host arena or opened IPC handles)."""

    name: str

    @property
    def shares_fds(self) -> bool:
        """The child passes each buffer as a descriptor (a real CUDA GPU)."""

    @property
    def arena(self) -> Arena | None:
        """Shared memory the child maps (its fd is passed at spawn), if any."""

    def case_message(self, specs: list[BufferSpec]) -> list[dict[str, Any]]:
        """How the child should set the case's buffers up (offsets, or sizes to allocate)."""

    def attach(self, handles: list[bytes], fds: tuple[int, ...] = ()) -> None:
        """Take hold of the buffers the child set up (IPC handles, or fds that share them, which
        the caller closes afterwards); arm their guard zones."""

    def write(self, name: str, values: np.ndarray) -> None: ...

    def read(self, name: str) -> np.ndarray:
        """A copy, never a view the child could still change."""

    def write_elements(self, name: str, indices: np.ndarray, values: np.ndarray) -> None: ...

    def read_elements(self, name: str, indices: np.ndarray) -> np.ndarray: ...

    def poison(self, name: str) -> None: ...

    def check_guards(self) -> str | None:
        """A sentence naming the buffer a kernel wrote past, or None."""

    def evict(self) -> None:
        """Start the next call from memory: evict the buffers (host) or flush the GPU's caches."""

    def settle(self) -> None:
        """Before the child runs: the parent's own writes to the buffers have landed."""

    def flush_bytes(self) -> int: ...

    def release(self) -> None:
        """The case is over."""

    def close(self) -> None: ...

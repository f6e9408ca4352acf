"""The untrusted side of the harness: runs inside the sandbox, in the same process as user code.

    python -P [-S] -m agent.harness.child DEVICE CONTROL_FD ARENA_FD RUNTIME_FD LIBRARY_FD...

It opens the device and says READY; the parent may time empty calls now, while nothing of the
user's is loaded. LOAD loads the libraries from file descriptors the parent made (the solution
first; a later ranked pass may add the problem's reference solution) and answers READY again.
Then CASE sets up a case's buffers (on a GPU it allocates them and answers with their IPC
handles), GO calls `solution` once and answers DONE, FREE ends the case, QUIT ends the process.

It reads nothing from the box and writes nothing to it. Inputs, outputs and poison are the
parent's work, in memory the parent shares (the arena) or opens (IPC handles). Nothing this
process says is trusted: a kernel may take it over entirely (its C API, `/proc/self/mem`), which
is why the parent checks every output itself and times every call with its own clocks. GPU event
times are the one thing it measures, and the parent accepts them only within its own bounds.
"""

from __future__ import annotations

import ctypes
import marshal
import mmap
import os
import sys
from collections.abc import Callable
from typing import Any

from agent.devices.base import DeviceError
from agent.devices.gpu import GpuDevice, load_runtime
from agent.harness.wire import (
    BUFFERS,
    CASE,
    FATAL,
    FREE,
    GO,
    GO_EMPTY,
    GO_LAYOUT,
    LOAD,
    QUIT,
    READY,
    ChildChannel,
    ChildGone,
)

CTYPES: dict[str, Any] = {
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "int": ctypes.c_int32,
    "unsigned int": ctypes.c_uint32,
    "int64_t": ctypes.c_int64,
    "size_t": ctypes.c_uint64,
    "uint8_t": ctypes.c_uint8,
    "int8": ctypes.c_int8,
    "uint8": ctypes.c_uint8,
    "int32": ctypes.c_int32,
}


class HostBuffers:
    """The host device: buffers are places in the arena the parent laid out."""

    def __init__(self, arena_fd: int) -> None:
        size = os.fstat(arena_fd).st_size
        self._map = mmap.mmap(arena_fd, size, flags=mmap.MAP_SHARED)
        self._base = ctypes.addressof(ctypes.c_char.from_buffer(self._map))

    def setup(self, buffers: list[dict[str, Any]]) -> tuple[dict[str, int], bytes, list[int]]:
        return {b["name"]: self._base + int(b["offset"]) for b in buffers}, b"", []

    def call(self, fn: Callable[[], None]) -> float:
        fn()
        return 0.0

    def free(self) -> None:
        return None


class GpuBuffers:
    """hip, cuda and the emulator: allocate, share IPC handles, time with events."""

    def __init__(self, device: GpuDevice) -> None:
        self.device = device

    def setup(self, buffers: list[dict[str, Any]]) -> tuple[dict[str, int], bytes, list[int]]:
        """(pointers, one IPC handle per buffer, the fds that share them where the device uses fds)."""
        ptrs = {b["name"]: self.device.alloc(int(b["alloc"]), b["name"], int(b["element"])) for b in buffers}
        shared = [self.device.share(ptr) for ptr in ptrs.values()]
        return ptrs, b"".join(handle for handle, _ in shared), [fd for _, fd in shared if fd is not None]

    def call(self, fn: Callable[[], None]) -> float:
        event_ms = self.device.timed_call(fn)
        self.device.synchronize()
        return event_ms

    def free(self) -> None:
        self.device.free_all()


def open_buffers(device: str, arena_fd: int, runtime_fd: int) -> HostBuffers | GpuBuffers:
    if device == "host":
        return HostBuffers(arena_fd)
    api = device.removeprefix("emulated-")
    path = f"/proc/self/fd/{runtime_fd}" if runtime_fd >= 0 else None
    return GpuBuffers(GpuDevice(api, load_runtime(api, path), emulated=device.startswith("emulated-")))


def call_args(spec: dict[str, Any], ptrs: dict[str, int]) -> list[Any]:
    args: list[Any] = []
    for arg in spec["args"]:
        if arg["pointer"]:
            args.append(ctypes.c_void_p(ptrs[arg["name"]]))
        else:
            args.append(CTYPES[arg["ctype"]](arg["value"]))
    return args


def load_libraries(fds: list[str]) -> list[Any]:
    """Each library's `solution`. RTLD_LOCAL: a library loaded later (the ranked pass's reference
    solution) must bind its own functions, not the user's of the same name loaded first (with
    RTLD_GLOBAL the user's `helper` would run in the reference's place and skew the speedup)."""
    solutions = []
    for fd in fds:
        function = ctypes.CDLL(f"/proc/self/fd/{fd}", mode=ctypes.RTLD_LOCAL).solution
        function.restype = None
        solutions.append(function)
    return solutions


def _bound(function: Any, args: list[Any]) -> Callable[[], None]:
    return lambda: function(*args)


class LoadFailed(Exception):
    """A solution that cannot be loaded (a language's loader says why)."""


def bind_library_call(function: Any, spec: dict[str, Any], ptrs: dict[str, int]) -> Callable[[], None]:
    return _bound(function, call_args(spec, ptrs))


# A language that is not a shared library (agent/languages/) brings its own loader and binder.
Loader = Callable[[list[str]], list[Any]]
Binder = Callable[[Any, dict[str, Any], dict[str, int]], Callable[[], None]]


def serve(channel: ChildChannel, buffers: HostBuffers | GpuBuffers, libraries: list[str],
          load: Loader = load_libraries, bind: Binder = bind_library_call) -> int:
    solutions: list[Any] = []
    calls: list[Callable[[], None]] = []
    while True:
        message = channel.receive()
        kind, body = message[:1], message[1:]
        # The child waits for GO asleep, not polling: on a busy machine a task that slept is given a
        # CPU at once when woken, one that polled has used up its turn.
        if kind == GO:
            seq, flags, library = GO_LAYOUT.unpack(body)
            try:
                event_ms = buffers.call((lambda: None) if flags & GO_EMPTY else calls[library])
            except DeviceError as exc:
                channel.done(seq, error=str(exc))
                continue
            channel.done(seq, event_ms)
        elif kind == LOAD:
            try:
                solutions = load(libraries)
            except (OSError, AttributeError, LoadFailed) as exc:
                channel.send(FATAL, f"cannot load the solution: {exc}".encode())
                return 3
            channel.send(READY)
        elif kind == CASE:
            # Written by the trusted parent (agent.harness.calls), which never decodes anything of the child's
            # this way. marshal, not json: json's import (re) was a fifth of the child's start.
            spec = marshal.loads(body)  # noqa: S302
            try:
                ptrs, handles, fds = buffers.setup(spec["buffers"])
            except DeviceError as exc:
                channel.send(FATAL, f"cannot allocate the buffers: {exc}".encode())
                return 4
            calls = [bind(fn, spec, ptrs) for fn in solutions]
            channel.send(BUFFERS, handles, fds)
            for fd in fds:  # the parent holds its own copies now
                os.close(fd)
        elif kind == FREE:
            buffers.free()
        elif kind == QUIT:
            return 0


def main(argv: list[str]) -> int:
    device, control, arena, runtime, *libraries = argv[1:]
    channel = ChildChannel(int(control))
    try:
        if device.startswith("emulated-"):
            os.environ["HJEMU_ARENA_FD"] = arena  # read by the runtime at its first allocation
        buffers = open_buffers(device, int(arena), int(runtime))
    except (OSError, DeviceError, ValueError) as exc:
        channel.send(FATAL, f"cannot open the {device} device: {exc}".encode())
        return 3
    channel.send(READY)
    try:
        return serve(channel, buffers, libraries)
    except ChildGone:
        return 0  # the parent is done with this process


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""The sandboxed child of a Triton job: the harness's protocol (agent.harness.child), with a Python
launcher where a C++ child has a shared library.

    python -P [-S] -m agent.languages.triton.child DEVICE CONTROL_FD ARENA_FD RUNTIME_FD SOURCE_FD...

DEVICE `host`: Triton's interpreter on the CPU (TRITON_INTERPRET=1, set before Triton is first
imported), the buffers being the arena the parent shares, every access of the interpreter checked
against them (agent.languages.triton.bounds). DEVICE `hip` / `cuda`: Triton's JIT on the GPU, the
buffers allocated by the judge's runtime binding as for HIP and CUDA. The sources are sealed memfds
(the submission first; the ranked pass may add the problem's own Triton solution).

A launcher's exception ends the call with an error sentence (the parent shows it as a runtime
error), never the process: the next case runs in a process that is known to be sane anyway.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from agent.devices.base import DeviceError
from agent.harness.child import LoadFailed, open_buffers, serve
from agent.harness.wire import FATAL, READY, ChildChannel, ChildGone
from agent.languages.triton.submission import prepare_environment

MAX_SOURCE_BYTES = 1 << 20


def main(argv: list[str]) -> int:
    device, control, arena, runtime, *sources = argv[1:]
    interpreted = device == "host"
    prepare_environment(interpreted=interpreted)
    channel = ChildChannel(int(control))
    try:
        buffers = open_buffers(device, int(arena), int(runtime))
        if not interpreted:
            from agent.languages.triton.gpu_driver import install

            install(device, buffers.device.timed_call if hasattr(buffers, "device") else None)
    except (OSError, DeviceError, ValueError, ImportError, RuntimeError) as exc:
        channel.send(FATAL, f"cannot open the {device} device: {exc}".encode())
        return 3
    channel.send(READY)
    loader = _Loader(interpreted)
    try:
        return serve(channel, buffers, sources, load=loader.load, bind=loader.bind)
    except ChildGone:
        return 0


class _Loader:
    def __init__(self, interpreted: bool) -> None:
        self.interpreted = interpreted
        self.device_name = "cpu" if interpreted else "cuda"

    def load(self, fds: list[str]) -> list[Any]:
        from agent.languages.triton.submission import SubmissionError, load_module

        if self.interpreted:
            from agent.languages.triton import interpreter_fixes

            interpreter_fixes.apply()

        launchers = []
        for index, fd in enumerate(fds):
            with os.fdopen(int(fd), "rb", closefd=False) as file:
                file.seek(0)
                source = file.read(MAX_SOURCE_BYTES).decode("utf-8", "replace")
            try:
                module = load_module(source, interpreted=self.interpreted, name="solution" if index == 0
                                     else f"solution_{index}")
            except SubmissionError as exc:
                raise LoadFailed(str(exc)) from None
            launchers.append(module)
        return launchers

    def bind(self, module: Any, spec: dict[str, Any], ptrs: dict[str, int]) -> Callable[[], None]:
        from agent.languages.triton.submission import SubmissionError, launcher, one_line
        from agent.languages.triton.tensors import launcher_args

        args = launcher_args(spec["args"], ptrs, self.device_name)
        if self.interpreted:
            from agent.languages.triton.bounds import BufferMap, Region, guard

            guard(BufferMap([Region(a.name, a.data_ptr(), a.nbytes, a.element_size())
                             for a in args if hasattr(a, "data_ptr")]))
        try:
            fn = launcher(module, [a["name"] for a in spec["args"]])
        except SubmissionError as exc:
            message = str(exc)

            def refused() -> None:
                raise DeviceError(message)

            return refused

        def call() -> None:
            try:
                fn(*args)
            except BaseException as exc:  # noqa: BLE001 - the user's exception is the call's error
                if isinstance(exc, (KeyboardInterrupt, SystemExit, ChildGone)):
                    raise
                raise DeviceError(one_line(exc)) from None

        return call


if __name__ == "__main__":
    sys.exit(main(sys.argv))

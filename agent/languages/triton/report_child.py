"""The compile of a Triton submission, in the sandbox (its module runs: it is user code).

    python -P [-S] -m agent.languages.triton.report_child

Reads /box/solution.py and /box/launch.json (the problem's parameter names, types and one case's
sizes), runs the launcher once per target with Triton told that the current GPU is that target and
every launch turned into a compile without a launch (Triton's own `warmup`: the same specialisation
and options a real launch compiles with), and prints its report as its last line, after
REPORT_MARKER: per target each kernel's resources (agent.languages.triton.report) and the AMDGCN
listing. No GPU is needed or touched.

On a GPU agent launch.json also asks for every case's kernels for that GPU and Triton's launcher
stub, in the box's writable Triton cache (agent.languages.triton.precompile_child).

Exit 0 with a report (which may say sm_90 failed), 2 when the file cannot be loaded or its
launcher or gfx942's compile fails: the message is on stderr, one line, for the compile output.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

STARTED = time.monotonic()  # the child's start: its compile limit counts from about here
BOX = Path(os.environ.get("HIPJUDGE_BOX", "/box"))
# The targets compiled for: MI300X first, then H100 (sm_90).
TARGETS = (("hip", "gfx942", 64), ("cuda", 90, 32))
MAX_KERNELS = 16  # distinct compiled kernels reported per target (a launcher looping over shapes)
ALIGNED_BASE = 0x7F00_0000_0000  # where the stand-in buffers "are": 256-byte aligned, like real ones


class _TargetDriver:
    """What Triton asks its active driver while compiling a launch: the target, device 0, stream 0."""

    def __init__(self, target: Any) -> None:
        self.target = target

    def get_current_target(self) -> Any:
        return self.target

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, device: int | None = None) -> int:
        return 0

    def get_benchmarker(self) -> Any:
        """An autotuner's benchmark: each configuration's launch runs once, which here compiles it;
        nothing is timed (every configuration "takes" no time, and the first is kept)."""

        def compile_each(kernel_call: Any, quantiles: Any = None, **_: Any) -> list[float]:
            kernel_call()
            return [0.0, 0.0, 0.0]

        return compile_each


def main() -> int:
    from agent.languages.triton.report import REPORT_MARKER, listing_chunks
    from agent.languages.triton.submission import SubmissionError, launcher, load_module, one_line, prepare_environment

    launch = json.loads((BOX / "launch.json").read_text())
    if launch.get("precompile"):
        from agent.languages.triton.precompile_child import prepare

        prepare(BOX)
    prepare_environment(interpreted=False)
    from agent.languages.triton.tensors import launcher_args

    try:
        module = load_module((BOX / "solution.py").read_text(), interpreted=False)
        fn = launcher(module, [a["name"] for a in launch["args"]])
    except SubmissionError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    ptrs = {a["name"]: ALIGNED_BASE + (k << 32) for k, a in enumerate(launch["args"]) if a["pointer"]}
    args = launcher_args(launch["args"], ptrs, "cuda")
    compiled = _record_compiles()
    targets = []
    for backend, arch, warp in TARGETS:
        targets.append(_compile_for(fn, args, compiled, backend, arch, warp, one_line))
        # MI300X's compile decides; sm_90's failure is reported only (MI300X's fp8 formats, for one,
        # have no NVIDIA type).
        if backend == "hip" and targets[-1].get("launcher_error") and not targets[-1]["kernels"]:
            print(targets[-1]["launcher_error"], file=sys.stderr)
            return 2
    if launch.get("precompile"):
        from agent.languages.triton.precompile_child import precompile

        failed = precompile(fn, launch["precompile"], BOX, _TargetDriver, one_line, STARTED)
        if failed:
            print(failed, file=sys.stderr)
            return 2
    listing = "\n".join(k.pop("amdgcn", "") for k in targets[0]["kernels"])
    report = {"case": launch.get("case"), "targets": targets, "amdgcn_listing": listing_chunks(listing)}
    sys.stdout.flush()
    print(f"\n{REPORT_MARKER}{json.dumps(report)}", flush=True)
    return 0


def _record_compiles() -> list[Any]:
    """Every launch becomes a compile (`warmup=True`); the compiled kernels are appended here."""
    from triton.runtime import jit

    compiled: list[Any] = []
    original = jit.JITFunction.run

    def compile_only(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        kernel = original(self, *args, grid=grid, warmup=True, **kwargs)
        if kernel is not None and len(compiled) < MAX_KERNELS:
            compiled.append(kernel)
        return kernel

    jit.JITFunction.run = compile_only  # type: ignore[method-assign]
    return compiled


def _compile_for(fn: Any, args: list[Any], compiled: list[Any], backend: str, arch: Any, warp: int,
                 one_line: Any) -> dict[str, Any]:
    import gc

    from triton.backends.compiler import GPUTarget
    from triton.runtime import driver, jit

    from agent.languages.triton.report import kernel_report

    name = arch if backend == "hip" else f"sm_{arch}"
    driver.set_active(_TargetDriver(GPUTarget(backend, arch, warp)))
    for obj in gc.get_objects():  # each kernel compiles afresh for this target
        if isinstance(obj, jit.JITFunction):
            obj.device_caches.clear()
    compiled.clear()
    started = time.monotonic()
    result: dict[str, Any] = {"target": name, "backend": backend, "kernels": [], "launcher_error": None}
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001 - the user's launcher or Triton's compiler: reported as it said
        result["launcher_error"] = f"compiling for {name}: {one_line(exc)}"
    result["seconds"] = round(time.monotonic() - started, 3)
    result["kernels"] = [kernel_report(kernel, backend) for kernel in compiled]
    return result


if __name__ == "__main__":
    sys.exit(main())

"""The compile child's second step on a GPU agent: every kernel of every case, for the agent's own
GPU, and Triton's launcher stub, written into the Triton cache the run child gets read-only.

Run from report_child when launch.json has a `precompile` entry (agent.languages.triton.precompile
makes it). TRITON_CACHE_DIR is the compile box's writable `triton-cache` folder for the whole
process, set before Triton is imported. The stand-in driver of the report answers the agent's real
target, and every launch compiles without launching (`warmup`), as for the report; an autotuned
kernel compiles each of its configurations (the benchmarker runs each once, as a compile, and
times nothing: the run child times them on the GPU, in the untimed calls before any timed one).

The launcher stub is the C module Triton's driver builds with the system C compiler when it is
first constructed (`HIPUtils` / `CudaUtils`); it is built here by constructing the same driver
utilities, with the module's loading skipped (there is no GPU here), so that Triton itself names
and keys it exactly as the run child's driver will look it up.
"""

from __future__ import annotations

import json
import os
import types
from pathlib import Path
from typing import Any

from agent.languages.triton.precompile import CACHE_NAME, MANIFEST


def prepare(box: Path) -> None:
    """Before Triton is imported: its cache is the box's writable folder."""
    os.environ["TRITON_CACHE_DIR"] = str(box / CACHE_NAME)


# Of the compile's time limit, the share the cases' kernels may take: the rest is for the launcher
# stub, the report and the sandbox's start and end.
CASES_SHARE = 0.85


def precompile(fn: Any, spec: dict[str, Any], box: Path, driver_for: Any, one_line: Any,
               started: float | None = None) -> str | None:
    """Compile every case of `spec` (the launch.json entry) for its target and build the stub;
    None when it all compiled, else the sentence that says what did not.

    Every @triton.autotune configuration compiles for every case's sizes (at most 16 of them, times
    the cases' distinct specialisations), which a legitimate kernel's list may not fit in the
    compile limit (`spec["compile_s"]`, counted from `started`, the child's start). Before each
    case, when the time used plus the longest case so far would pass CASES_SHARE of it, the compile
    stops with a sentence that says how far it got and why, not at the sandbox's deadline mid-way."""
    import gc
    import time

    from triton.backends.compiler import GPUTarget
    from triton.runtime import driver, jit

    from agent.languages.triton.tensors import launcher_args

    arch: Any = spec["arch"] if spec["backend"] == "hip" else int(spec["arch"])
    driver.set_active(driver_for(GPUTarget(spec["backend"], arch, int(spec["warp_size"]))))
    for obj in gc.get_objects():  # compiled afresh for this target (the report compiled for others)
        if isinstance(obj, jit.JITFunction):
            obj.device_caches.clear()
    from agent.languages.triton.report_child import ALIGNED_BASE

    started = time.monotonic() if started is None else started
    limit_s = float(spec.get("compile_s") or 0.0) * CASES_SHARE
    longest = 0.0
    for done, case in enumerate(spec["cases"]):
        elapsed = time.monotonic() - started
        if limit_s and elapsed + longest > limit_s:
            return (f"compiling for {spec['target']} would not finish within the {spec['compile_s']:g} s compile "
                    f"limit: {done} of {len(spec['cases'])} cases' kernels compiled in {elapsed:.0f} s (the longest "
                    f"case {longest:.1f} s). On a GPU agent every @triton.autotune configuration is compiled for "
                    "every case's sizes: list fewer configurations, or prune them (prune_configs_by)")
        ptrs = {a["name"]: ALIGNED_BASE + (k << 32) for k, a in enumerate(case["args"]) if a["pointer"]}
        before = time.monotonic()
        try:
            fn(*launcher_args(case["args"], ptrs, "cuda"))
        except Exception as exc:  # noqa: BLE001 - the user's launcher or Triton's compiler, as it said
            return f"compiling for {spec['target']} (case {case['case']}): {one_line(exc)}"
        longest = max(longest, time.monotonic() - before)
    try:
        manifest = build_launcher_stub(spec)
    except Exception as exc:  # noqa: BLE001 - the C compiler's failure is the agent's, said plainly
        return f"building Triton's launcher for {spec['target']} failed: {one_line(exc)}"
    (box / CACHE_NAME / MANIFEST).write_text(json.dumps(manifest))
    return None


def build_launcher_stub(spec: dict[str, Any]) -> dict[str, Any]:
    """Construct the backend's driver utilities once with loading skipped: Triton compiles its C
    launcher into the cache. Returns what the run child must tell Triton to find it again."""
    from triton.runtime import build

    manifest: dict[str, Any] = {"backend": spec["backend"], "arch": spec["arch"],
                                "runtime_library": spec["runtime_library"]}
    pin_platform_key()
    loaded = build._load_module_from_path
    build._load_module_from_path = lambda name, path: _StandIn()  # type: ignore[assignment]
    try:
        if spec["backend"] == "hip":
            from triton.backends.amd import driver as amd

            set_hip_library(spec["runtime_library"])
            amd.HIPUtils()
            del amd.HIPUtils.instance  # a real one is made by whoever needs it next
        else:
            from triton.backends.nvidia import compiler as nv_compiler
            from triton.backends.nvidia import driver as nv

            os.environ["TRITON_LIBCUDA_PATH"] = spec["runtime_library"]
            nv.CudaUtils()
            del nv.CudaUtils.instance
            # The kernels' cache key holds ptxas's version, which Triton asks ptxas for: the run child
            # may start no process, so it is told the version the kernels were keyed with.
            manifest["ptxas_version"] = nv_compiler.get_ptxas_version(int(spec["arch"]))
    finally:
        build._load_module_from_path = loaded  # type: ignore[assignment]
    return manifest


def set_hip_library(path: str) -> None:
    """The HIP runtime's path, which Triton writes into its launcher's source (so it is part of the
    launcher's cache key): the agent's, in the compile child and the run child alike, and found
    without Triton's search (which may run `hipconfig` and `ldconfig`)."""
    from triton.backends.amd import driver as amd

    amd._get_path_to_hip_runtime_dylib = lambda: path


def pin_platform_key() -> None:
    """The launcher's cache key holds Triton's `platform_key()`, from `platform.architecture()`,
    which runs `file` on the interpreter when it can: "ELF" where processes may start (the compile
    child), "" where they may not (the run child), and the run child would miss the launcher. Both
    children use this one, which starts nothing."""
    import platform
    import struct

    from triton.runtime import build

    key = ",".join([platform.machine(), platform.system(), f"{struct.calcsize('P') * 8}bit", "ELF"])
    build.platform_key = lambda: key  # type: ignore[attr-defined]


class _StandIn(types.SimpleNamespace):
    """The launcher module as the driver utilities see it here: every attribute, none of them used."""

    def __getattr__(self, name: str) -> None:
        return None

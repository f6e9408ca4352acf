"""A Triton submission's compile (agent.judging.compiler dispatches here): the report's compile in
the sandbox, and on a GPU agent the precompiled Triton cache (agent.languages.triton.precompile),
cached per user scope like a C++ build."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from agent.judging.compile_cache import CompileCache
from agent.judging.compiler import CompileResult, scrub_paths, toolchain
from agent.languages.triton.compile import compile_triton, summary_text, triton_version
from agent.languages.triton.precompile import CACHE_ENTRY_SHARE, GpuTarget, unpack_cache
from agent.problems.bundle import Problem
from agent.sandbox.modes import Sandbox
from agent.sandbox.resources import ResourceLimits
from agent.sandbox.toolchain import CompileRejected


def compile_triton_source(problem: Problem, source: str, box: Path, sandbox: Sandbox, limits: ResourceLimits,
                          cancel: threading.Event | None, started: float, cache: CompileCache | None,
                          scope: str | None, gpu: GpuTarget | None) -> CompileResult:
    """A Triton file: compiled for gfx942 and sm_90 in the sandbox for its report; the source itself
    is what the later phases load. Forbidden patterns are refused first, as for C++. The report is
    cached per user scope like a C++ build (keyed by source, launch sizes and Triton's version). On a
    GPU agent (`gpu`) the compile also fills a Triton cache for that GPU at every case's sizes, with
    the launcher stub the system C compiler builds: the entry is then that cache and the report, keyed
    by the target, its runtime library and the C compiler's version besides."""
    from agent.judging.phase import call_args, precompile_cases

    for rule in problem.forbidden:
        if "triton" in rule.languages and rule.search(source):
            raise CompileRejected(f"forbidden: {rule.reason}")
    cases = problem.cases("bench", "gpu") or problem.cases("test", "gpu") or list(problem.tests)
    case = cases[0]  # the report is of the first GPU benchmark's launch: its sizes pick the kernels
    launch: dict[str, Any] = {"case": case.name, "args": call_args(problem, case)}
    flags = [json.dumps(launch)]
    if gpu is not None:
        launch["precompile"] = gpu.spec(precompile_cases(problem))
        c_compiler = toolchain("cpp")  # Triton builds its launcher with the system's gcc
        flags += [*gpu.cache_flags(), json.dumps(launch["precompile"]["cases"]),
                  c_compiler.version if c_compiler else "no C compiler"]
    library = box.parent / "solution.py"
    saved = box.parent / ("triton-gpu.tar" if gpu is not None else "report.json")
    key = None
    if cache is not None and scope:
        key = cache.key(scope=scope, language="triton", version=triton_version(), flags=flags, source=source)
        if cache.get(key, saved):
            library.write_text(source)
            if gpu is None:
                report, folder = json.loads(saved.read_text()), None
            else:
                report, folder = unpack_cache(saved, box.parent)
            return CompileResult(True, summary_text(report), True, time.monotonic() - started, library=library,
                                 report=report, triton_cache=folder)
    ok, output, built, report, timed_out = compile_triton(source=source, launch=launch, box=box, sandbox=sandbox,
                                                          limits=limits, cancel=cancel,
                                                          archive=saved if gpu is not None else None)
    folder = None
    if ok and gpu is not None:
        report, folder = unpack_cache(saved, box.parent)
    elif ok:
        saved.write_text(json.dumps(report))
    # A Triton cache entry is stored only within its share of the compile cache (CACHE_ENTRY_SHARE,
    # which pack_cache's bound also keeps for the default cache), so that a configured smaller cache
    # is not crowded by one user's kernels either.
    if ok and key is not None and cache is not None and saved.stat().st_size <= cache.max_bytes // CACHE_ENTRY_SHARE:
        cache.put(key, saved)
    return CompileResult(ok, scrub_paths(output, box), False, time.monotonic() - started, timed_out, built, report,
                         folder)

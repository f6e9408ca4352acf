"""The GPU timing path of the harness, run for real on the emulated device: a benchmark phase (the
judge refuses benchmark mode there for users, the harness itself does not care) in which the child
times calls with the runtime's events and the parent bounds them by its own clock. An honest
kernel passes; a kernel that rewrites the harness through the interpreter's C API to report a
twentieth of its event times is refused."""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.judging.phase import JobContext, Phase, PhaseResult
from agent.problems.bundle import Case
from agent.sandbox.boxfs import sealed_memfd
from agent.sandbox.resources import ResourceLimits
from tests.agent.conftest import PROBLEMS_DIR, load_problem
from tests.agent.emulator.driver import compile_library

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

FORGE = """
extern "C" int PyGILState_Ensure(void);
extern "C" void PyGILState_Release(int);
extern "C" int PyRun_SimpleString(const char*);
__attribute__((constructor)) static void forge() {
    int state = PyGILState_Ensure();
    PyRun_SimpleString(
        "import sys\\n"
        "child = sys.modules['__main__']\\n"
        "real = child.GpuBuffers.call\\n"
        "child.GpuBuffers.call = lambda self, fn: real(self, fn) / 20\\n");
    PyGILState_Release(state);
}
"""


def run_phase(config: AgentConfig, emu_runtime: Path, library: Path, tmp_path: Path,
              make: Callable[[JobContext, list[int]], Phase] | None = None) -> tuple[PhaseResult, list[str]]:
    """A phase on the emulated device (by default a benchmark of one case) with `library` as the
    solution, and as the reference where a phase wants one (its fd is the last): the result and
    the kinds of the events it emitted."""
    fds = [sealed_memfd(library, "solution.so"), sealed_memfd(emu_runtime, "libhjemu.so"),
           sealed_memfd(library, "reference.so")]
    emitted: list[str] = []
    try:
        job = JobContext(problem=load_problem("vector-add"), device="emulated-hip", sandbox=config.sandbox,
                         job_dir=tmp_path, limits=ResourceLimits(case_budget_s=0.3), secret=secrets.token_bytes(32),
                         emit=lambda kind, data: emitted.append(kind), cancel=threading.Event(),
                         libraries=[fds[0]], runtime_fd=fds[1], emulator_runtime=emu_runtime)
        phase = make(job, fds) if make else Phase(kind="bench", cases=[Case("n=2^16", ("gpu",), {"n": 1 << 16})],
                                                   job=job)
        return phase.run(), emitted
    finally:
        for fd in fds:
            os.close(fd)


def bench_phase(config: AgentConfig, emu_runtime: Path, library: Path, tmp_path: Path) -> PhaseResult:
    return run_phase(config, emu_runtime, library, tmp_path)[0]


@pytest.fixture
def wide_overhead_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """How far honest events fall below the parent's clock on the emulator depends on the machine's
    load (its threads wait for a CPU outside the events, in every call alike): a make test on the
    2-core machine once refused an honest kernel by 0.05 ms. The honest tests are about the path,
    so they get a bound no load reaches; the forged times are refused with the calibrated one."""
    monkeypatch.setattr("agent.judging.phase.overhead_bound", lambda empty_calls_ms: 50.0)


@pytest.mark.usefixtures("wide_overhead_bound")
def test_honest_gpu_event_times_pass_the_parents_bounds(emu_config: AgentConfig, emu_runtime: Path,
                                                         emu_workdir: Path, tmp_path: Path) -> None:
    source = (PROBLEMS_DIR / "vector-add" / "solutions" / "hip.hip").read_text()
    result = bench_phase(emu_config, emu_runtime, compile_library(source, "hip", emu_workdir, "hip.hip"), tmp_path)
    assert result.status is None, result.reason
    (case,) = result.cases
    assert case["runs"] >= 3
    assert 0 < case["min_ms"] <= case["median_ms"] <= case["max_ms"]
    assert case["flush_bytes"] == 0  # the emulator has no device cache to flush


def test_forged_gpu_event_times_are_refused(emu_config: AgentConfig, emu_runtime: Path, emu_workdir: Path,
                                            tmp_path: Path) -> None:
    source = FORGE + (PROBLEMS_DIR / "vector-add" / "solutions" / "hip.hip").read_text()
    result = bench_phase(emu_config, emu_runtime, compile_library(source, "hip", emu_workdir, "forge.hip"), tmp_path)
    assert result.status == "RUNTIME_ERROR", result
    assert result.reason.startswith("benchmark 'n=2^16': timing cross-check failed: GPU events measured")
    assert "the times must be the events'" in result.reason


@pytest.mark.usefixtures("wide_overhead_bound")
def test_the_ranked_pass_times_the_reference_in_a_gpu_process_of_its_own(
        emu_config: AgentConfig, emu_runtime: Path, emu_workdir: Path, tmp_path: Path) -> None:
    """The ranked pass's GPU path: the kernel's and the reference's processes each get the device,
    their calls are timed by events and bounded by the parent, and each pair gives a speedup."""
    from agent.judging.ranked import RankedPhase

    source = (PROBLEMS_DIR / "vector-add" / "solutions" / "hip.hip").read_text()
    library = compile_library(source, "hip", emu_workdir, "hip.hip")
    result, emitted = run_phase(emu_config, emu_runtime, library, tmp_path, lambda job, fds: RankedPhase(
        cases=[Case("n=65539", ("gpu",), {"n": 65539})], job=job, seed=5, reference_fd=fds[-1]))
    assert result.status is None, result.reason
    (case,) = result.cases
    assert emitted == ["RANKED_RESULT"]
    assert case["runs"] >= 20
    assert case["reference_mean_ms"] > 0
    assert case["speedup"] > 0

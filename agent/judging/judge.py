"""One job from request to verdict: compile → check → benchmark (→ the ranked pass of a
leaderboard job, agent.judging.ranked), streaming events as it goes.

`judge()` never raises for anything a user did: every path ends in exactly one RESULT event with
a status and a sentence saying why. Each phase runs in its own fresh box; the compiled library
leaves the compile's box once, safely (agent.sandbox.boxfs), and reaches every later phase as a sealed
memfd. The job's directory is removed on every path, whatever the boxes hold.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.emulator.budget import EMULATED_CASE_BYTES, emulated_cases
from agent.judging.compile_cache import SCOPE_PATTERN
from agent.judging.compiler import build_evict_helper, compile_solution, toolchain
from agent.judging.jobs import MAX_JOB_SECONDS
from agent.judging.phase import JobContext, Phase, PhaseResult
from agent.judging.stats import geometric_mean
from agent.languages.triton.budget import INTERPRETED_CASE_BYTES
from agent.languages.triton.precompile import GpuTarget, gpu_target
from agent.problems.bundle import LANGUAGE_DEVICE_CLASS, LANGUAGES, Problem, ProblemError, problem_from_bundle
from agent.protocol import (
    COMPILE_RESULT,
    MAX_ID_CHARS,
    MAX_SOURCE_BYTES,
    MODES,
    RESULT,
    STATUS,
    CompileResultPayload,
    ResultPayload,
)
from agent.sandbox.boxfs import fresh_box, remove_tree, sealed_memfd
from agent.sandbox.resources import ResourceLimits
from agent.sandbox.toolchain import CompileRejected, Toolchain

if TYPE_CHECKING:
    from agent.config import AgentConfig

MAX_RANKED_SEED = 2**63 - 1
# The problem's own solutions, timed beside leaderboard jobs: one build for everybody.
REFERENCE_CACHE_SCOPE = "hipjudge-reference"
Emit = Callable[[str, dict[str, Any]], None]


class JobSpecError(ValueError):
    """The job request is invalid; the message names the field."""


@dataclass(frozen=True)
class JobSpec:
    id: str
    problem: Problem
    language: str
    source: str
    mode: str
    limits: ResourceLimits
    seed: int | None = None
    cache_scope: str | None = None  # opaque, one per user: compiled builds are shared within it only
    ranked_seed: int | None = None  # mode leaderboard: the platform's secret for the ranked inputs

    @classmethod
    def from_request(cls, body: Any, config: AgentConfig | None = None) -> JobSpec:
        """With `config`, also refuse what this agent cannot do (a benchmark on the emulator)."""
        if not isinstance(body, Mapping):
            raise JobSpecError("body: must be a JSON object")
        job_id = body.get("id")
        if not isinstance(job_id, str) or not job_id.strip() or len(job_id) > MAX_ID_CHARS:
            raise JobSpecError(f"id: must be a non-empty string of at most {MAX_ID_CHARS} characters")
        if "problem" not in body:
            raise JobSpecError("problem: missing")
        try:
            problem = problem_from_bundle(body["problem"])
        except ProblemError as exc:
            raise JobSpecError(f"problem: {exc}") from exc
        language = body.get("language")
        if language not in LANGUAGES:
            raise JobSpecError(f"language: must be one of {', '.join(LANGUAGES)}")
        source = body.get("source")
        if not isinstance(source, str) or not source.strip():
            raise JobSpecError("source: must be a non-empty string")
        if len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES or "\0" in source:
            raise JobSpecError(f"source: must be at most {MAX_SOURCE_BYTES // 1024} KiB of text without NUL bytes")
        mode = body.get("mode", "benchmark")
        if config is not None and language == "triton" and mode in ("benchmark", "leaderboard") \
                and config.device == "host":
            raise JobSpecError("mode: Triton kernels run in Triton's interpreter on this agent (no GPU), which "
                               "checks them but cannot time them: use mode 'check' or 'compile'")
        if config is not None:
            from agent.emulator.toolchain import BENCHMARK_REFUSAL, REFUSED_MODES, would_emulate

            if mode in REFUSED_MODES and would_emulate(language, config.device):
                raise JobSpecError(f"mode: {BENCHMARK_REFUSAL}")
        if mode not in MODES:
            raise JobSpecError(f"mode: must be one of {', '.join(MODES)}")
        seed = body.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise JobSpecError("seed: must be an integer or null")
        try:
            limits = ResourceLimits.from_request(body.get("limits"))
        except ValueError as exc:
            raise JobSpecError(str(exc)) from exc
        scope = body.get("cache_scope")
        if scope is not None and not (isinstance(scope, str) and SCOPE_PATTERN.fullmatch(scope)):
            raise JobSpecError("cache_scope: must be 1 to 128 letters, digits, '-' or '_', or null")
        ranked_seed = body.get("ranked_seed")
        if mode == "leaderboard":
            if isinstance(ranked_seed, bool) or not isinstance(ranked_seed, int) or not (
                    0 <= ranked_seed <= MAX_RANKED_SEED):
                raise JobSpecError("ranked_seed: a leaderboard job needs an integer from 0 to 2**63 - 1")
            device_class = LANGUAGE_DEVICE_CLASS[language]
            if not problem.cases("ranked", device_class):
                raise JobSpecError(f"problem: has no ranked case for the {device_class} device class")
        elif ranked_seed is not None:
            raise JobSpecError("ranked_seed: only a leaderboard job takes one")
        return cls(job_id, problem, language, source, mode, limits, seed, scope, ranked_seed)


def run_device(spec: JobSpec, config: AgentConfig) -> str | None:
    """The device a job runs on here (emulated-hip / emulated-cuda for a check without that GPU),
    or None when this agent cannot run it."""
    from agent.emulator.toolchain import emulator_runtime, would_emulate

    if LANGUAGE_DEVICE_CLASS[spec.language] == "host":
        return "host"
    if spec.language == "triton":  # on the CPU (Triton's interpreter) only to check
        return config.device if config.device != "host" or spec.mode == "check" else None
    if config.device == spec.language:
        return spec.language
    if would_emulate(spec.language, config.device) and spec.mode == "check" and emulator_runtime(config.build_dir):
        return f"emulated-{spec.language}"
    return None


def judge(spec: JobSpec, config: AgentConfig, emit: Emit, cancel: threading.Event) -> None:
    job_dir = config.jobs_dir / hashlib.sha256(spec.id.encode()).hexdigest()[:24]
    fds: list[int] = []
    try:
        status, reason, summary = _pipeline(spec, config, emit, cancel, job_dir, fds)
    finally:
        for fd in fds:
            os.close(fd)
        remove_tree(job_dir)
    result: ResultPayload = {"status": status, "reason": reason, "score_ms": summary.get("score_ms"),
                             "summary": summary}
    emit(RESULT, dict(result))


def _toolchain(spec: JobSpec, device: str | None, config: AgentConfig) -> Toolchain | None:
    """The emulated device's g++ build where the job runs there, or for a compile-only hip/cuda
    job on an agent without that compiler; None: the language's own compiler."""
    from agent.emulator.toolchain import emulated_toolchain, would_emulate

    emulate = device is not None and device.startswith("emulated-")
    if not emulate and spec.mode == "compile" and would_emulate(spec.language, config.device):
        emulate = toolchain(spec.language) is None
    return emulated_toolchain(spec.language, config.sandbox, config.build_dir) if emulate else None


def _triton_gpu(spec: JobSpec, device: str | None, config: AgentConfig) -> GpuTarget | None:
    """The GPU a Triton job's kernels are compiled for in its compile phase, to run from a
    read-only cache (agent.languages.triton.precompile); None where they are not run on a GPU."""
    if spec.language != "triton" or device not in ("hip", "cuda") or spec.mode == "compile":
        return None
    return gpu_target(device, config.arch)


def _pipeline(spec: JobSpec, config: AgentConfig, emit: Emit, cancel: threading.Event, job_dir: Any,
              fds: list[int]) -> tuple[str, str, dict[str, Any]]:
    job_deadline = time.monotonic() + MAX_JOB_SECONDS  # the agent's 2 h limit, enforced by every watchdog
    device = run_device(spec, config)
    emulated = device is not None and device.startswith("emulated-")
    summary: dict[str, Any] = {"device": "emulated" if emulated else config.device, "language": spec.language,
                               "mode": spec.mode}
    if device is None and spec.mode != "compile":
        return "ERROR", (f"this agent runs on the {config.device} device and cannot run {spec.language} "
                         "kernels; only mode 'compile' is possible here"), summary
    emit(STATUS, {"status": "COMPILING"})
    chosen = _toolchain(spec, device, config)
    arch = None if chosen is not None else config.arch_for(spec.language)
    summary["arch"] = arch
    triton_gpu = _triton_gpu(spec, device, config)
    try:
        compiled = compile_solution(problem=spec.problem, language=spec.language, source=spec.source,
                                    box=fresh_box(job_dir, "compile-box"), cache_dir=config.cache_dir,
                                    sandbox=config.sandbox, limits=spec.limits, arch=arch, cancel=cancel,
                                    cache_scope=spec.cache_scope, cache_max_bytes=config.cache_max_bytes,
                                    chosen=chosen, triton_gpu=triton_gpu)
    except CompileRejected as exc:
        if cancel.is_set():
            return "CANCELLED", "the job was cancelled", summary
        refused: CompileResultPayload = {"ok": False, "output": str(exc), "cached": False, "seconds": 0.0}
        emit(COMPILE_RESULT, dict(refused))
        return "COMPILE_ERROR", str(exc), summary
    said: CompileResultPayload = {"ok": compiled.ok, "output": compiled.output, "cached": compiled.cached,
                                  "seconds": round(compiled.seconds, 3)}
    if compiled.report is not None:
        said["report"] = compiled.report
    emit(COMPILE_RESULT, dict(said))
    summary["compile"] = {"cached": compiled.cached, "seconds": round(compiled.seconds, 3)}
    if compiled.report is not None:  # the listing stays in COMPILE_RESULT: the summary is kept small
        summary["compile_report"] = {k: v for k, v in compiled.report.items() if k != "amdgcn_listing"}
    if cancel.is_set():
        return "CANCELLED", "the job was cancelled", summary
    if not compiled.ok or compiled.library is None:
        summary["compile_output"] = compiled.output
        return "COMPILE_ERROR", _first_error(compiled.output), summary
    if spec.mode == "compile" and spec.language == "triton":
        return "COMPILED", compiled.output.splitlines()[0] if compiled.output else "compiled", summary
    if spec.mode == "compile":
        target = "the emulated device (g++)" if chosen is not None else (arch or "the host")
        if arch == "gfx940" and config.device != "hip":
            target += " (the newest AMD target this hipcc knows; MI300X's gfx942 has the same instructions)"
        return "COMPILED", f"compiled for {target} without errors", summary
    assert device is not None

    fds.append(sealed_memfd(compiled.library, "solution.py" if spec.language == "triton" else "solution.so"))
    job = JobContext(problem=spec.problem, device=device, sandbox=config.sandbox, job_dir=job_dir,
                     limits=spec.limits, secret=secrets.token_bytes(32) + (spec.seed or 0).to_bytes(16, "little",
                                                                                                       signed=True),
                     emit=emit, cancel=cancel, libraries=[fds[0]], job_deadline=job_deadline,
                     test_seed=spec.seed if spec.seed is not None else secrets.randbelow(2**63),
                     native_helper=build_evict_helper(config.build_dir))
    if spec.language == "triton":
        job.child_module, job.interpreted = "agent.languages.triton.child", device == "host"
        job.triton_cache = compiled.triton_cache
    if emulated:
        from agent.emulator.toolchain import emulator_runtime

        job.emulator_runtime = emulator_runtime(config.build_dir)
        if job.emulator_runtime is None:
            return "ERROR", "the emulator's runtime could not be built on this agent", summary
        fds.append(sealed_memfd(job.emulator_runtime, "libhjemu.so"))
        job.runtime_fd = fds[-1]
    return _phases(spec, job, emit, summary, config)


def _phases(spec: JobSpec, job: JobContext, emit: Emit, summary: dict[str, Any],
            config: AgentConfig) -> tuple[str, str, dict[str, Any]]:
    timed = spec.mode in ("benchmark", "leaderboard")
    kinds = [("test", "CHECKING")] + ([("bench", "BENCHMARKING")] if timed else [])
    skipped = 0
    for kind, stage in kinds:
        emit(STATUS, {"status": stage})
        if job.kind == "emulated" or job.interpreted:
            cases, over_budget = emulated_cases(spec.problem, INTERPRETED_CASE_BYTES if job.interpreted
                                                else EMULATED_CASE_BYTES)
            skipped = len(over_budget)
            if over_budget:  # named, for the problem author's check (submissions/authoring/check.py)
                summary["over_budget"] = [case.name for case in over_budget]
        else:
            cases = spec.problem.cases(kind, job.device_class)
        started = time.monotonic()
        result: PhaseResult = Phase(kind=kind, cases=cases, job=job).run()
        summary["tests" if kind == "test" else "benchmarks"] = result.cases
        summary[f"{kind}_seconds"] = round(time.monotonic() - started, 3)
        # What the program printed (its last output_kb, the rest said cut): with a failure, and with a
        # passed check, whose author may be printing from a kernel (tl.device_print, printf) to debug
        # it. A failure shows the same text anyway, so a passed check reveals nothing more.
        if result.output.strip() and (result.status is not None or spec.mode == "check"):
            summary["output"] = result.output
        if result.status is not None:
            return result.status, result.reason, summary
    if spec.mode == "check":
        where = " on the emulated device (CPU)" if job.kind == "emulated" else (
            " on the CPU (Triton's interpreter)" if job.interpreted else "")
        over = (f"; {skipped} larger cases skipped (over the {'interpreter' if job.interpreted else 'emulator'}'s "
                "size budget)") if skipped else ""
        return "CHECKED", f"all {len(summary['tests'])} tests passed{where}{over}", summary
    score = geometric_mean([c["mean_ms"] for c in summary["benchmarks"]])
    summary["score_ms"] = score
    passed = (f"all {len(summary['tests'])} tests passed; score {score:.4g} ms "
              f"(geometric mean over {len(summary['benchmarks'])} benchmark cases)")
    if spec.mode != "leaderboard":
        return "ACCEPTED", passed, summary
    return _ranked(spec, job, emit, summary, config, passed)


def _ranked(spec: JobSpec, job: JobContext, emit: Emit, summary: dict[str, Any], config: AgentConfig,
            passed: str) -> tuple[str, str, dict[str, Any]]:
    """The ranked pass: its verdict is the job's, its result goes in summary.ranked."""
    from agent.judging.ranked import RankedPhase, failed_summary, ranked_summary

    emit(STATUS, {"status": "RANKING"})
    started = time.monotonic()
    assert spec.ranked_seed is not None
    try:
        reference_fd = _reference_library(spec, job, config)
    except ReferenceUnavailable as exc:
        summary["ranked"] = failed_summary(str(exc))
        return "ERROR", f"ranked pass: {exc}", summary
    try:
        result = RankedPhase(cases=spec.problem.cases("ranked", job.device_class), job=job,
                             seed=spec.ranked_seed, reference_fd=reference_fd).run()
    finally:
        if reference_fd is not None:
            os.close(reference_fd)
    summary["ranked_seconds"] = round(time.monotonic() - started, 3)
    if result.status is not None:
        summary["ranked"] = failed_summary(result.reason)
        return result.status, f"ranked pass: {result.reason}", summary
    ranked = ranked_summary(result.cases)
    summary["ranked"] = ranked
    speedup = f", {ranked['speedup']:.3g}x the problem's own solution" if ranked["speedup"] is not None else ""
    return "ACCEPTED", (f"{passed}; ranked on {len(result.cases)} secret case(s): {ranked['score_ms']:.4g} ms"
                        f"{speedup}"), summary


class ReferenceUnavailable(Exception):
    """The problem's own solution for this language could not be built: a judge error."""


def _reference_library(spec: JobSpec, job: JobContext, config: AgentConfig) -> int | None:
    """The problem's own solution in the job's language, built (cached for everybody) and sealed
    for the reference child; None when the bundle has none (no speedup then). A Triton reference's
    precompiled cache goes in `job.reference_triton_cache`."""
    source = spec.problem.baselines.get(spec.language)
    if source is None:
        return None
    try:
        compiled = compile_solution(problem=spec.problem, language=spec.language, source=source,
                                    box=fresh_box(job.job_dir / "reference", "compile-box"),
                                    cache_dir=config.cache_dir, sandbox=config.sandbox, limits=spec.limits,
                                    arch=config.arch_for(spec.language), cancel=job.cancel,
                                    cache_scope=REFERENCE_CACHE_SCOPE, cache_max_bytes=config.cache_max_bytes,
                                    triton_gpu=_triton_gpu(spec, job.device, config))
    except CompileRejected as exc:
        raise ReferenceUnavailable(f"the problem's own {spec.language} solution was refused (a judge error): "
                                   f"{exc}") from None
    if not compiled.ok or compiled.library is None:
        raise ReferenceUnavailable(f"the problem's own {spec.language} solution did not compile here (a judge "
                                   f"error): {_first_error(compiled.output)}")
    job.reference_triton_cache = compiled.triton_cache
    return sealed_memfd(compiled.library, "reference.so")  # the caller closes it


def _first_error(output: str) -> str:
    for line in output.splitlines():
        if "error" in line.lower():
            return f"compilation failed: {line.strip()[:300]}"
    text = output.strip().splitlines()
    return f"compilation failed: {text[0][:300]}" if text else "compilation failed"

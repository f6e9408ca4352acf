"""One job from request to verdict: compile → check → benchmark, streaming events as it goes.

`judge()` never raises for anything a user did: every path ends in exactly one RESULT event with
a status and a sentence saying why.
"""

from __future__ import annotations

import hashlib
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.compiler import CompileRejected, build_evict_helper, compile_solution
from agent.config import AgentConfig
from agent.devices.host import EVICT_LIBRARY
from agent.harness import Phase, PhaseResult, clean_box
from agent.limits import Limits
from agent.problems import LANGUAGE_DEVICE_CLASS, LANGUAGES, Problem, ProblemError, problem_from_bundle
from agent.stats import geometric_mean

MAX_SOURCE_BYTES = 64 * 1024
MAX_ID_CHARS = 64
MODES = ("check", "benchmark", "compile")
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
    limits: Limits
    seed: int | None = None

    @classmethod
    def from_request(cls, body: Any) -> JobSpec:
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
        if mode not in MODES:
            raise JobSpecError(f"mode: must be one of {', '.join(MODES)}")
        seed = body.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise JobSpecError("seed: must be an integer or null")
        try:
            limits = Limits.from_request(body.get("limits"))
        except ValueError as exc:
            raise JobSpecError(str(exc)) from exc
        return cls(job_id, problem, language, source, mode, limits, seed)


def run_device(spec: JobSpec, config: AgentConfig) -> str | None:
    """The device a language runs on here, or None when this agent cannot run it."""
    if LANGUAGE_DEVICE_CLASS[spec.language] == "host":
        return "host"
    return config.device if config.device == spec.language else None


def judge(spec: JobSpec, config: AgentConfig, emit: Emit, cancel: threading.Event) -> None:
    job_dir = config.jobs_dir / hashlib.sha256(spec.id.encode()).hexdigest()[:24]
    box = job_dir / "box"
    try:
        status, reason, summary = _pipeline(spec, config, emit, cancel, box)
    finally:
        shutil.rmtree(job_dir, ignore_errors=True)
    emit("RESULT", {"status": status, "reason": reason, "score_ms": summary.get("score_ms"), "summary": summary})


def _place_evict_helper(config: AgentConfig, box: Path) -> None:
    # Placed just before the benchmark: the tests ran user code that could write to the box.
    target = box / EVICT_LIBRARY
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    else:
        target.unlink(missing_ok=True)
    helper = build_evict_helper(config.cache_dir)
    if helper is not None:
        shutil.copyfile(helper, target)


def _pipeline(spec: JobSpec, config: AgentConfig, emit: Emit, cancel: threading.Event,
              box: Any) -> tuple[str, str, dict[str, Any]]:
    summary: dict[str, Any] = {"device": config.device, "language": spec.language, "mode": spec.mode}
    device = run_device(spec, config)
    if device is None and spec.mode != "compile":
        return "ERROR", (f"this agent runs on the {config.device} device and cannot run {spec.language} "
                         "kernels; only mode 'compile' is possible here"), summary
    clean_box(box)
    emit("STATUS", {"status": "COMPILING"})
    arch = config.arch_for(spec.language)
    summary["arch"] = arch
    try:
        compiled = compile_solution(problem=spec.problem, language=spec.language, source=spec.source, box=box,
                                    cache_dir=config.cache_dir, sandbox=config.sandbox, limits=spec.limits,
                                    arch=arch, cancel=cancel)
    except CompileRejected as exc:
        emit("COMPILE_RESULT", {"ok": False, "output": str(exc), "cached": False, "seconds": 0.0})
        return "COMPILE_ERROR", str(exc), summary
    emit("COMPILE_RESULT", {"ok": compiled.ok, "output": compiled.output, "cached": compiled.cached,
                            "seconds": round(compiled.seconds, 3)})
    summary["compile"] = {"cached": compiled.cached, "seconds": round(compiled.seconds, 3)}
    if cancel.is_set():
        return "CANCELLED", "the job was cancelled", summary
    if not compiled.ok:
        summary["compile_output"] = compiled.output
        return "COMPILE_ERROR", _first_error(compiled.output), summary
    if spec.mode == "compile":
        return "COMPILED", f"compiled for {arch or 'the host'} without errors", summary
    assert device is not None

    secret = secrets.token_bytes(32) + (spec.seed or 0).to_bytes(16, "little", signed=True)
    kinds = [("test", "CHECKING")] + ([("bench", "BENCHMARKING")] if spec.mode == "benchmark" else [])
    for kind, stage in kinds:
        emit("STATUS", {"status": stage})
        if device == "host" and kind == "bench":
            _place_evict_helper(config, box)
        phase = Phase(kind=kind, problem=spec.problem, cases=spec.problem.cases(kind, _device_class(device)),
                      device=device, sandbox=config.sandbox, box=box, limits=spec.limits, secret=secret,
                      emit=emit, cancel=cancel)
        started = time.monotonic()
        result: PhaseResult = phase.run()
        summary["tests" if kind == "test" else "benchmarks"] = result.cases
        summary[f"{kind}_seconds"] = round(time.monotonic() - started, 3)
        if result.status is not None:
            if result.output.strip():
                summary["output"] = result.output
            return result.status, result.reason, summary
    if spec.mode == "check":
        return "CHECKED", f"all {len(summary['tests'])} tests passed", summary
    score = geometric_mean([c["mean_ms"] for c in summary["benchmarks"]])
    summary["score_ms"] = score
    return ("ACCEPTED", f"all {len(summary['tests'])} tests passed; score {score:.4g} ms "
            f"(geometric mean over {len(summary['benchmarks'])} benchmark cases)", summary)


def _device_class(device: str) -> str:
    return "host" if device == "host" else "gpu"


def _first_error(output: str) -> str:
    for line in output.splitlines():
        if "error" in line.lower():
            return f"compilation failed: {line.strip()[:300]}"
    text = output.strip().splitlines()
    return f"compilation failed: {text[0][:300]}" if text else "compilation failed"

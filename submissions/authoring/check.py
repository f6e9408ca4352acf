"""`problem check`: a bundle's own solutions through the agent's real judging pipeline (compiler,
sandbox, harness, verification), on every device this machine has. The judge runs in an agent
process of its own (submissions.authoring.local_agent: `python -m agent jobs`), one job request per
run, as a pool's agent gets them.

- host: solutions/cpp.cpp (which accumulates in float32, as an honest kernel does) is ACCEPTED in
  benchmark mode (its tests and timed benchmarks verified) and CHECKED under the other seeds, each a
  new job and so a new draw of every input: a tolerance too tight for float32 shows as a surprise.
  solutions/wrong.cpp gets WRONG_ANSWER: a tolerance too loose to refuse it is a surprise too.
- emulated (no GPU of that kind here): hip.hip and cuda.cu CHECKED on the emulated device, every test
  case within the emulator's size budget (agent.emulator.budget).
- hip / cuda (this machine's GPU): that language's solution CHECKED on it.
- hipcc / nvcc (installed, no such GPU): hip.hip / cuda.cu COMPILED, for the newest target the
  compiler knows (a problem that requires a newer one is skipped, saying so).
- every starter under templates/ COMPILED where its language compiles (cpp on the host).
- triton (Triton installed, a problem with templates/triton.py): solutions/triton.py CHECKED in
  Triton's interpreter on the CPU (after its compile for gfx942 and sm_90), solutions/wrong.py
  refused (a wrong answer, or a load or store outside a buffer: a runtime error), the template
  COMPILED.

Every run is a Row; a Row whose `got` differs from `expected` is a surprise.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.problems import HIP_ARCHS, Problem, ProblemError, load_problem_dir
from agent.protocol import CEILINGS, JobRequest, ResultPayload
from submissions.authoring.local_agent import LocalAgent

DEFAULT_SEEDS = (1, 2, 3)
CACHE_SCOPE = "problem-check"  # one scope: a solution unchanged since the last check is not compiled again
# Devices in the order they run; which of them this machine has: available_devices().
DEVICES = ("host", "emulated", "hip", "cuda", "hipcc", "nvcc", "triton")
REFUSED = "WRONG_ANSWER or RUNTIME_ERROR"  # what a wrong Triton file may get: its bug reads outside a buffer, or not
GPU_FILES = {"hip": "hip.hip", "cuda": "cuda.cu"}
# What is checked is the answer, never the speed: every wall-clock limit at its ceiling (a busy
# machine runs the emulator many times slower), the benchmark's timed loops short.
LIMITS = {"compile_s": CEILINGS["compile_s"], "check_s": CEILINGS["check_s"],
          "emulated_check_s": CEILINGS["emulated_check_s"]}
BENCH_LIMITS = {**LIMITS, "case_budget_s": 0.2}


@dataclass(frozen=True)
class Run:
    device: str  # one of DEVICES
    file: str  # the source, relative to the bundle
    language: str
    mode: str
    expected: str
    seed: int | None = None


@dataclass(frozen=True)
class Row:
    problem: str
    device: str
    solution: str
    expected: str
    got: str
    seconds: float
    detail: str = ""  # the judge's reason, shown for a surprise

    @property
    def surprise(self) -> bool:
        return self.got != self.expected


def available_devices(agent: LocalAgent) -> tuple[str, ...]:
    """The devices of DEVICES this machine can check on, from what its agent says it has."""
    health = agent.health
    found = {"host"}
    for language in GPU_FILES:
        if health["device"] == language:
            found.add(language)
        elif language in health["emulated"]:
            found.add("emulated")
    for device, language in (("hipcc", "hip"), ("nvcc", "cuda")):
        if health["toolchains"].get(language) and health["device"] != language:
            found.add(device)
    if health["triton"]:
        found.add("triton")
    return tuple(d for d in DEVICES if d in found)


def plan(devices: Iterable[str], seeds: Sequence[int] = DEFAULT_SEEDS) -> list[Run]:
    """The jobs a check runs on `devices`, in order."""
    if not seeds:
        raise ValueError("at least one seed")
    wanted = set(devices)
    runs: list[Run] = []
    if "host" in wanted:
        runs.append(Run("host", "solutions/cpp.cpp", "cpp", "benchmark", "ACCEPTED", seeds[0]))
        runs += [Run("host", "solutions/cpp.cpp", "cpp", "check", "CHECKED", seed) for seed in seeds[1:]]
        runs.append(Run("host", "solutions/wrong.cpp", "cpp", "check", "WRONG_ANSWER", seeds[0]))
        runs.append(Run("host", "templates/cpp.cpp", "cpp", "compile", "COMPILED"))
    for language, file in GPU_FILES.items():
        if "emulated" in wanted:
            runs.append(Run("emulated", f"solutions/{file}", language, "check", "CHECKED"))
        if language in wanted:
            runs.append(Run(language, f"solutions/{file}", language, "check", "CHECKED", seeds[0]))
    for device, language in (("hipcc", "hip"), ("nvcc", "cuda")):
        if device in wanted:
            runs += [Run(device, f"{folder}/{GPU_FILES[language]}", language, "compile", "COMPILED")
                     for folder in ("solutions", "templates")]
    if "triton" in wanted:
        runs += [Run("triton", "solutions/triton.py", "triton", "check", "CHECKED", seeds[0]),
                 Run("triton", "solutions/wrong.py", "triton", "check", REFUSED, seeds[0]),
                 Run("triton", "templates/triton.py", "triton", "compile", "COMPILED")]
    return runs


def judge_source(agent: LocalAgent, problem: Problem, source: str, language: str, mode: str,
                 limits: dict[str, float], seed: int | None = None) -> tuple[ResultPayload, list[str]]:
    """One job through the agent's judge, as a pool's agent runs it: (the RESULT's payload, the
    types of every event in order)."""
    request: JobRequest = {"id": f"check-{uuid.uuid4().hex}", "problem": problem.to_bundle(), "language": language,
                           "source": source, "mode": mode, "limits": limits, "seed": seed,
                           "cache_scope": CACHE_SCOPE}
    return agent.judge(request)


def _too_new(problem: Problem, agent: LocalAgent) -> str | None:
    """Why hipcc cannot compile this problem's HIP sources here, if it cannot."""
    needed, known = problem.requires.get("hip_arch"), agent.ready["compile_arch"].get("hip")
    if needed and known in HIP_ARCHS and HIP_ARCHS.index(needed) > HIP_ARCHS.index(known):
        return f"needs {needed}; this hipcc knows {known}"
    return None


def run_one(agent: LocalAgent, problem: Problem, folder: Path, run: Run) -> Row:
    name = run.file.removeprefix("solutions/")
    label = name if run.seed is None else f"{name} seed={run.seed}"
    if run.device == "hipcc" and (why := _too_new(problem, agent)):
        return Row(problem.slug, "hipcc", label, "skipped", "skipped", 0.0, why)
    path = folder / run.file
    if not path.is_file():
        return Row(problem.slug, run.device, label, run.expected, "missing", 0.0, f"no {run.file}")
    device = run.device
    started = time.monotonic()
    limits = BENCH_LIMITS if run.mode == "benchmark" else LIMITS
    result, _ = judge_source(agent, problem, path.read_text(), run.language, run.mode, limits, run.seed)
    seconds = time.monotonic() - started
    got, detail = result["status"], result["reason"]
    if got in run.expected.split(" or "):
        got = run.expected
    summary = result.get("summary") or {}
    if run.device in ("hipcc", "nvcc") and summary.get("arch"):
        device = f"{run.device} {summary['arch']}"
    if run.device == "emulated":
        over = summary.get("over_budget") or []
        if summary.get("device") != "emulated":
            got = f"{got} on {summary.get('device')}"
        elif over:
            got, detail = f"{got}, {len(over)} skipped", f"over the emulator's size budget: {over}"
    return Row(problem.slug, device, label, run.expected, got, round(seconds, 2), detail)


def check_problem(folder: Path, agent: LocalAgent, devices: Iterable[str],
                  seeds: Sequence[int] = DEFAULT_SEEDS) -> list[Row]:
    """Every run of plan() for the bundle in `folder`; a bundle that does not load is one row."""
    folder = Path(folder)
    started = time.monotonic()
    try:
        problem = load_problem_dir(folder)
    except ProblemError as exc:
        return [Row(folder.name, "-", "problem.yaml", "loads", "invalid", round(time.monotonic() - started, 2),
                    str(exc))]
    return [run_one(agent, problem, folder, run) for run in plan(devices, seeds) if run.language in problem.languages]


def format_table(rows: Sequence[Row]) -> str:
    """The rows as aligned columns, then each surprise with the judge's reason."""
    header = ("problem", "device", "solution", "expected", "got", "seconds")
    cells = [header] + [(r.problem, r.device, r.solution, r.expected, r.got, f"{r.seconds:.2f}") for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
             for row in cells]
    lines += [f"SURPRISE {r.problem} {r.device} {r.solution}: expected {r.expected}, got {r.got}: {r.detail}"
              for r in rows if r.surprise]
    return "\n".join(lines)

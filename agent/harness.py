"""The trusted side of the harness: inputs, the sandboxed child, verification and cross-checks.

For one phase (the test cases or the benchmark cases) the parent
1. derives a seed per case and input set from a per-job secret the child never sees, generates
   the inputs with the problem's generator and writes them into the box;
2. starts `agent.child` in the sandbox and follows its results file while it runs;
3. for every finished case, regenerates the inputs from the seed, computes the reference and
   compares the child's outputs (shape, NaN/inf, tolerance or exact), refuses modified inputs,
   and for benchmarks cross-checks the GPU/host timer against the wall clock;
4. stops at the first failure and classifies how the child ended.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agent.child import VERIFIED_MARK
from agent.limits import MIB, Limits, ProcessLimits
from agent.problems import Case, Problem
from agent.sandbox import BOX, DockerSandbox, Outcome, Sandbox
from agent.stats import summarize
from agent.timing_checks import MIN_RUNS, fresh_anomaly, implausible, timing_anomaly
from agent.verify import apply_mutation, compare

Emit = Callable[[str, dict[str, Any]], None]

FRESH_SETS = ("B", "C")  # input sets timed once each after the runs on set A
BENCH_DEFAULTS: dict[str, Any] = {"warmup": 2, "min_runs": MIN_RUNS, "max_runs": 200, "rel_err": 0.005,
                  # Input elements changed before each timed run; share and cap of runs kept for verification.
                  "mutations": 64, "verify_fraction": 0.1, "max_verified": 3, "fresh_sets": list(FRESH_SETS)}
_SIGNAL_HINTS = {
    signal.SIGSEGV: "segmentation fault (SIGSEGV): an out-of-bounds or invalid memory access",
    signal.SIGBUS: "bus error (SIGBUS): a misaligned or invalid memory access",
    signal.SIGFPE: "arithmetic exception (SIGFPE), e.g. an integer division by zero",
    signal.SIGABRT: "aborted (SIGABRT), often an allocation beyond the memory limit or a failed assertion",
    signal.SIGILL: "illegal instruction (SIGILL)",
    signal.SIGXFSZ: "wrote more output than allowed (SIGXFSZ)",
    signal.SIGKILL: "killed (SIGKILL)",
}


@dataclass
class PhaseResult:
    status: str | None = None  # None: every case passed
    reason: str = ""
    cases: list[dict[str, Any]] = field(default_factory=list)
    output: str = ""


def case_seed(secret: bytes, kind: str, index: int, input_set: str) -> int:
    digest = hashlib.sha256(secret + f"/{kind}/{index}/{input_set}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


class Phase:
    def __init__(self, *, kind: str, problem: Problem, cases: list[Case], device: str, sandbox: Sandbox,
                 box: Path, limits: Limits, secret: bytes, emit: Emit, cancel: threading.Event) -> None:
        self.kind = kind  # "test" | "bench"
        self.problem, self.cases, self.device = problem, cases, device
        self.sandbox, self.box, self.limits = sandbox, box, limits
        self.secret, self.emit, self.cancel = secret, emit, cancel
        self.sets = ("A",) if kind == "test" else ("A", *FRESH_SETS)
        self.result = PhaseResult()
        self._offset = 0
        self._current: int | None = None
        self._done: set[int] = set()
        self._wall_ms_reported = 0.0

    # ---- preparing --------------------------------------------------------------------------
    def _inputs(self, index: int, input_set: str) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(case_seed(self.secret, self.kind, index, input_set))
        return self.problem.generate(self.cases[index], rng)

    def _case_dir(self, index: int) -> str:
        return f"{self.kind}{index}"

    def _write_spec(self) -> int:
        largest = 0
        spec_cases = []
        for index, case in enumerate(self.cases):
            for input_set in self.sets:
                set_dir = self.box / self._case_dir(index) / input_set
                set_dir.mkdir(parents=True, exist_ok=True)
                for name, arr in self._inputs(index, input_set).items():
                    np.save(set_dir / f"in_{name}.npy", arr, allow_pickle=False)
            buffers = {}
            for p in self.problem.signature:
                if p.pointer:
                    shape = p.shape_for(case.params)
                    buffers[p.name] = {"shape": list(shape), "dtype": p.dtype.name}
                    largest = max(largest, int(np.prod(shape)) * p.dtype.itemsize)
            scalars = {name: (float(v) if self._is_float(name) else int(v))
                       for name, v in self.problem.scalar_args(case).items()}
            spec_cases.append({"name": case.name, "dir": self._case_dir(index), "scalars": scalars,
                               "buffers": buffers})
        spec = {
            "device": self.device,
            "phase": self.kind,
            "signature": [{"name": p.name, "ctype": p.ctype, "pointer": p.pointer, "output": p.output}
                          for p in self.problem.signature],
            "cases": spec_cases,
            "bench": {**BENCH_DEFAULTS, "budget_s": self.limits.case_budget_s},
        }
        (self.box / "spec.json").write_text(json.dumps(spec))
        (self.box / "results.jsonl").unlink(missing_ok=True)
        return largest

    def _is_float(self, name: str) -> bool:
        return next(p for p in self.problem.signature if p.name == name).dtype.kind == "f"

    # ---- running ----------------------------------------------------------------------------
    def run(self) -> PhaseResult:
        largest = self._write_spec()
        wall = self.limits.check_s if self.kind == "test" else self.limits.benchmark_s
        python = "python3" if isinstance(self.sandbox, DockerSandbox) else sys.executable
        proc = self.sandbox.spawn(
            [python, "-m", "agent.child", f"{BOX}/spec.json"],
            box=self.box,
            limits=ProcessLimits(
                wall_s=wall,
                cpu_s=int(wall * 2) + 1,
                memory_bytes=self.limits.memory_mb * MIB if self.device == "host" else None,
                file_bytes=max(64 * MIB, 2 * largest + MIB),
                nproc=self.limits.nproc,
                output_bytes=self.limits.output_kb * 1024,
                threads_only=True,  # a kernel has no business starting processes
            ),
            device=self.device,
            env=_runtime_env(self.device),
            log_name=f"{self.kind}.log",
        )
        outcome = proc.wait(self.cancel, tick=self._follow)
        self._follow()  # lines written just before the end
        self.result.output = outcome.output
        if self.result.status is None and len(self._done) < len(self.cases):
            self._classify_end(outcome, wall)
        if self.result.status is None and self.kind == "bench":
            self._check_total_wall(outcome)
        return self.result

    def _follow(self) -> bool:
        """Read new result lines; True once a failure is known (the child is then killed)."""
        if self.result.status is not None:
            return True  # stop at the first failure: later results are neither verified nor reported
        path = self.box / "results.jsonl"
        try:
            with path.open("rb") as fh:
                fh.seek(self._offset)
                chunk = fh.read()
        except FileNotFoundError:
            return False
        complete = chunk[: chunk.rfind(b"\n") + 1]
        self._offset += len(complete)
        for raw in complete.splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue  # user code can write into the box; a garbled line proves nothing
            if isinstance(line, dict) and self._handle(line):
                return True
        return self.result.status is not None

    def _handle(self, line: dict[str, Any]) -> bool:
        event, index = line.get("event"), line.get("index")
        if event == "fatal":
            self._fail("RUNTIME_ERROR", str(line.get("error", "the harness could not start")))
        elif isinstance(index, int) and 0 <= index < len(self.cases) and index not in self._done:
            if event == "start":
                self._current = index
            elif event == "error":
                self._fail("RUNTIME_ERROR", f"case '{self.cases[index].name}': {line.get('error')}")
            elif event == "done":
                self._done.add(index)
                self._verify(index, line)
        return self.result.status is not None

    def _fail(self, status: str, reason: str) -> None:
        if self.result.status is None:
            self.result.status, self.result.reason = status, reason

    # ---- verifying --------------------------------------------------------------------------
    def _verify(self, index: int, line: dict[str, Any]) -> None:
        case = self.cases[index]
        modified = line.get("inputs_modified") or []
        message = None
        if modified:
            message = f"solution modified its input {', '.join(map(str, modified))} (inputs are read-only)"
        for checked_set in self.sets[1:] if self.kind == "bench" else self.sets:
            if message is None:
                message = self._check_outputs(index, checked_set)
                if message and self.kind == "bench":
                    message = ("a timed run on fresh inputs gave a wrong result (are results cached across "
                               f"calls, or is work done only on the first call?): {message}")
        payload: dict[str, Any] = {"case": case.name, "index": index, "total": len(self.cases)}
        if self.kind == "test":
            payload.update(passed=message is None, message=message, seconds=line.get("seconds"))
            self.result.cases.append(payload)
            self.emit("TEST_RESULT", payload)
            if message:
                self._fail("WRONG_ANSWER", f"test '{case.name}' failed: {message}")
            return
        if message:
            self._fail("WRONG_ANSWER", f"benchmark '{case.name}': {message}")
            return
        times, walls = line.get("times_ms"), line.get("walls_ms")
        anomaly = timing_anomaly(self.device, times, walls)
        if anomaly:
            self._fail("RUNTIME_ERROR", f"benchmark '{case.name}': timing cross-check failed: {anomaly}")
            return
        assert isinstance(times, list) and isinstance(walls, list)  # both checked by timing_anomaly
        message = self._check_sampled_runs(index, line.get("verified"), len(times))
        if message:
            self._fail("WRONG_ANSWER", f"benchmark '{case.name}': a timed run on changed inputs gave a wrong "
                       f"result (results cached or work skipped?): {message}")
            return
        # After the outputs: a wrong result is the stronger verdict than a suspicious time.
        anomaly = fresh_anomaly(times, line.get("fresh_ms"), line.get("fresh_walls_ms"), len(self.sets) - 1)
        if anomaly:
            self._fail("RUNTIME_ERROR", f"benchmark '{case.name}': timing cross-check failed: {anomaly}")
            return
        self._wall_ms_reported += sum(walls) + sum(line["fresh_walls_ms"])
        stats = summarize(times, flops=self.problem.flop_count(case), nbytes=self.problem.byte_count(case))
        bad = implausible(self.device, min(times), self.problem.byte_count(case), self.problem.flop_count(case),
                          _env_float("HIPJUDGE_PEAK_GBPS"), _env_float("HIPJUDGE_PEAK_GFLOPS"))
        if bad:
            self._fail("RUNTIME_ERROR", f"benchmark '{case.name}': timing cross-check failed: {bad}")
            return
        payload.update(stats.as_dict())
        flushed = line.get("flush_bytes")
        payload["flush_bytes"] = flushed if isinstance(flushed, int) and flushed >= 0 else None  # as reported
        self.result.cases.append(payload)
        self.emit("BENCHMARK_RESULT", payload)
        try:
            (self.box / self._case_dir(index) / VERIFIED_MARK).touch()  # the child may time the next case
        except OSError:
            pass  # user code removed the case's folder: the child waits until the wall clock ends it

    def _check_outputs(self, index: int, input_set: str, inputs: dict[str, np.ndarray] | None = None,
                       suffix: str = "") -> str | None:
        case = self.cases[index]
        expected = self.problem.expected(case, inputs if inputs is not None else self._inputs(index, input_set))
        set_dir = self.box / self._case_dir(index) / input_set
        for name, want in expected.items():
            try:
                got = np.load(set_dir / f"out_{name}{suffix}.npy", allow_pickle=False)
            except (OSError, ValueError) as exc:
                return f"output {name} could not be read back ({exc.__class__.__name__})"
            if got.dtype != want.dtype:
                return f"output {name} came back as {got.dtype}, expected {want.dtype}"
            message = compare(name, got, want, self.problem.tolerance)
            if message:
                return message
        return None

    def _check_sampled_runs(self, index: int, records: Any, runs: int) -> str | None:
        """Replay the recorded input changes of the kept runs and verify their outputs."""
        if not isinstance(records, list) or not records:
            return "the harness kept no timed run for verification"
        original = self._inputs(index, "A")
        for record in records:
            mutations = record.get("mutations") if isinstance(record, dict) else None
            run = record.get("run") if isinstance(record, dict) else None
            if (not isinstance(run, int) or not 0 <= run < runs or not isinstance(mutations, dict)
                    or set(mutations) != set(original)):
                return "the harness reported a malformed verification record"
            inputs = {}
            for name, arr in original.items():
                changed = apply_mutation(arr, mutations[name], int(BENCH_DEFAULTS["mutations"]))
                if changed is None:
                    return "the harness reported a malformed verification record"
                inputs[name] = changed
            message = self._check_outputs(index, "A", inputs, suffix=f"_run{run}")
            if message:
                return f"run {run + 1}: {message}"
        return None

    def _check_total_wall(self, outcome: Outcome) -> None:
        # The child's clocks run inside the process user code controls; ours does not.
        if self._wall_ms_reported / 1e3 > outcome.wall_s + 0.5:
            self._fail("RUNTIME_ERROR", "timing cross-check failed: the reported times exceed the real "
                       f"elapsed time ({self._wall_ms_reported / 1e3:.2f} s reported in {outcome.wall_s:.2f} s)")

    # ---- how the child ended ----------------------------------------------------------------
    def _classify_end(self, outcome: Outcome, wall: float) -> None:
        where = f" in case '{self.cases[self._current].name}'" if self._current is not None else ""
        phase = "the tests" if self.kind == "test" else "the benchmark"
        if outcome.cancelled:
            self._fail("CANCELLED", "the job was cancelled")
        elif outcome.timed_out:
            self._fail("TIME_LIMIT_EXCEEDED", f"{phase} did not finish within the {wall:g} s limit{where}")
        elif outcome.signal is not None:
            try:
                hint = _SIGNAL_HINTS.get(signal.Signals(outcome.signal), f"signal {outcome.signal}")
            except ValueError:
                hint = f"signal {outcome.signal}"
            self._fail("RUNTIME_ERROR", f"the program crashed{where}: {hint}")
        elif outcome.returncode == 0:
            self._fail("RUNTIME_ERROR", f"the program exited{where} before solution() returned "
                       "(exit code 0): solution must return normally")
        else:
            self._fail("RUNTIME_ERROR", f"the program exited with code {outcome.returncode}{where}")


def _env_float(name: str) -> float | None:
    value = os.environ.get(name)
    return float(value) if value else None


def _runtime_env(device: str) -> dict[str, str]:
    paths = [p for p in ("/opt/rocm/lib", "/usr/local/cuda/lib64") if Path(p).is_dir()]
    return {"LD_LIBRARY_PATH": ":".join(paths)} if paths and device != "host" else {}


def clean_box(box: Path) -> None:
    shutil.rmtree(box, ignore_errors=True)
    box.mkdir(parents=True)

"""The trusted side of the harness: one phase (the tests or the benchmark) of a job.

The box, and everything the sandboxed process writes or says, is the user's. The parent owns the
data (memory it shares with the child), talks over a socket pair of size-capped messages, never
reads a path in a box after user code ran there, and takes no time from the child without a bound
it measured itself. The design, and why not files: docs/sandbox.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agent.devices import DeviceError
from agent.devices.base import DeviceAccess
from agent.devices.memory import BufferSpec
from agent.harness import channel as ch
from agent.harness.calls import Caller, Refused
from agent.harness.ending import Ending, threads_refused_note, verdict
from agent.harness.phase_child import RUN_BOX_BYTES, PhaseChild
from agent.judging.bench import BenchCase
from agent.judging.expected import PendingExpected, job_over
from agent.judging.timing_checks import overhead_bound
from agent.judging.verify import check_outputs, modified_inputs
from agent.problems.bundle import Case, Problem
from agent.protocol import BENCHMARK_RESULT, TEST_RESULT
from agent.sandbox.core import DEFAULT_RAM_BYTES
from agent.sandbox.modes import Outcome, Sandbox, SandboxUnavailable
from agent.sandbox.resources import MIB, ProcessLimits, ResourceLimits

Emit = Callable[[str, dict[str, Any]], None]
EXIT_WAIT_SECONDS = 2.0  # for a child that closed the channel to be reaped with its own exit status
CASE_LABELS = {"test": "case", "bench": "benchmark", "ranked": "ranked case"}
PHASE_NAMES = {"test": "the tests", "bench": "the benchmark", "ranked": "the ranked pass"}


@dataclass
class PhaseResult:
    status: str | None = None  # None: every case passed
    reason: str = ""
    cases: list[dict[str, Any]] = field(default_factory=list)
    output: str = ""


@dataclass
class JobContext:
    """What every phase of one job shares. `libraries` are sealed memfds (the solution first)."""

    problem: Problem
    device: str  # host | hip | cuda | emulated-hip | emulated-cuda
    sandbox: Sandbox
    job_dir: Path
    limits: ResourceLimits
    secret: bytes
    emit: Emit
    cancel: threading.Event
    libraries: list[int]
    runtime_fd: int | None = None  # the emulator's runtime, as a sealed memfd
    native_helper: Path | None = None  # agent/devices/evict.cpp built: eviction, and the stamped GO
    emulator_runtime: Path | None = None
    job_deadline: float | None = None
    # The public check's seed (the job's `seed`, else drawn for the job): its inputs come from it and
    # each case's name alone, so a mismatch names it and `python -m agent run --seed` replays them.
    test_seed: int = 0
    # The sandboxed child's module: a language that is not a shared library brings its own
    # (agent/languages/); `interpreted`: it runs on the CPU in that language's interpreter.
    child_module: str = "agent.harness.child"
    interpreted: bool = False
    # triton on a GPU: the precompiled Triton cache, bound read-only into the child's box (the
    # reference child of the ranked pass gets the reference's)
    triton_cache: Path | None = None
    reference_triton_cache: Path | None = None

    @property
    def device_class(self) -> str:
        return "host" if self.device == "host" else "gpu"

    @property
    def kind(self) -> str:
        """The device's family for limits and peaks: host, hip, cuda or emulated."""
        return "emulated" if self.device.startswith("emulated-") else self.device


def case_seed(secret: bytes, kind: str, index: int | str, input_set: str) -> int:
    digest = hashlib.sha256(secret + f"/{kind}/{index}/{input_set}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def public_case_seed(test_seed: int, case_name: str) -> int:
    """A test case's inputs depend on the told seed and the case's name alone (not its place in the
    list, which differs between device classes and the emulated device's budget): the same seed
    gives the same inputs on any machine."""
    return case_seed(hashlib.sha256(b"hipjudge-test/" + str(test_seed).encode()).digest(), "test", case_name, "A")


def reproduce_hint(problem_slug: str, test_seed: int) -> str:
    return (f"To reproduce it with the same inputs: python -m agent run --problem {problem_slug} --mode check "
            f"--seed {test_seed} YOUR_FILE")


def buffer_specs(problem: Problem, case: Case) -> list[BufferSpec]:
    return [BufferSpec(p.name, p.dtype, p.shape_for(case.params), p.output) for p in problem.signature if p.pointer]


def call_args(problem: Problem, case: Case) -> list[dict[str, Any]]:
    scalars = problem.scalar_args(case)
    # A pointer's type and shape are for launchers that get tensors (triton); a C child reads the name.
    return [{"pointer": True, "name": p.name, "type": p.ctype, "shape": list(p.shape_for(case.params))}
            if p.pointer else
            {"pointer": False, "name": p.name, "ctype": p.ctype, "value": float(scalars[p.name]) if p.dtype.kind == "f"
             else int(scalars[p.name])} for p in problem.signature]


def precompile_cases(problem: Problem) -> list[dict[str, Any]]:
    """Every GPU case's launch (tests, benchmarks, ranked), each distinct argument list once: what a
    GPU agent's Triton compile compiles for (agent.languages.triton.precompile)."""
    found: dict[str, dict[str, Any]] = {}
    for kind in ("test", "bench", "ranked"):
        for case in problem.cases(kind, "gpu"):
            args = call_args(problem, case)
            found.setdefault(json.dumps(args, sort_keys=True), {"case": case.name, "args": args})
    return list(found.values())


class Phase:
    # The ranked pass sets this: what the child says or prints could carry its secret inputs.
    withhold_child_text = False
    WITHHELD = "what the program said is withheld in the ranked pass, whose inputs are secret"
    WITHHELD_ENDING = ("how it ended, a crash, an exit or a limit, is withheld in the ranked pass, whose inputs "
                       "are secret")

    def __init__(self, *, kind: str, cases: list[Case], job: JobContext) -> None:
        self.kind = kind  # "test" | "bench" | "ranked"
        self.cases, self.job = cases, job
        self.result = PhaseResult()
        self._current: int | None = None
        self._done: set[int] = set()
        self._job_limit_reached = False
        self._rng = np.random.default_rng(int.from_bytes(os.urandom(8), "little"))
        self._child: PhaseChild | None = None
        self._references: list[PendingExpected] = []  # started on worker threads (agent.judging.expected)
        self._prepared: dict[int, tuple[dict[str, np.ndarray], PendingExpected]] = {}

    def _inputs(self, index: int, input_set: str) -> dict[str, np.ndarray]:
        if self.kind == "test":  # public inputs, from the seed a mismatch tells (the test phase uses set A only)
            return self._generate(index, public_case_seed(self.job.test_seed, self.cases[index].name))
        return self._generate(index, case_seed(self.job.secret, self.kind, index, input_set))

    def _generate(self, index: int, seed: int) -> dict[str, np.ndarray]:
        with self._judge_work():
            return self.job.problem.generate(self.cases[index], np.random.default_rng(seed))

    def _judge_work(self) -> AbstractContextManager[None]:
        """The judge's own work, which the child's wall clock does not count (agent.sandbox.watchdog)."""
        return self._child.judge_work() if self._child is not None else nullcontext()

    def _expected(self, pending: PendingExpected) -> dict[str, np.ndarray]:
        with self._judge_work():
            return pending.result(self._limit_passed)

    def _expect_later(self, index: int, inputs: dict[str, np.ndarray]) -> PendingExpected:
        """The reference on `inputs`, started now on a worker thread (agent.judging.expected: never while a
        call is timed); the phase waits for every one it started before it returns."""
        pending = PendingExpected(self.job.problem, self.cases[index], inputs)
        self._references = [p for p in self._references if p.running] + [pending]
        return pending

    def _prepare(self, index: int) -> tuple[dict[str, np.ndarray], PendingExpected]:
        """A test case's inputs (set A) and its reference, started now unless started earlier."""
        if index in self._prepared:
            return self._prepared.pop(index)
        inputs = self._inputs(index, "A")
        return inputs, self._expect_later(index, inputs)

    def _fail(self, status: str, reason: str) -> None:
        if self.result.status is None:
            self.result.status, self.result.reason = status, reason

    # ---- running ------------------------------------------------------------------------------
    def run(self) -> PhaseResult:
        try:
            if self.kind == "test" and self.cases:  # nothing of the test phase is timed: see agent.judging.expected
                self._prepared[0] = self._prepare(0)  # beside the device's opening and the child's start
            return self._run()
        finally:
            over = job_over(self.job.cancel, self.job.job_deadline)
            for pending in self._references:
                pending.settle(over)
            self._references.clear()
            self._prepared.clear()

    def _run(self) -> PhaseResult:
        specs = [buffer_specs(self.job.problem, case) for case in self.cases]
        child = self._child = PhaseChild(self.job, name=self.kind, specs=specs, limits=self._limits())
        try:
            child.open_device()
        except DeviceError as exc:
            self._fail("ERROR", f"the {self.job.kind} device could not be opened: {exc}")
            return self.result
        try:
            channel = child.start()
            assert child.access is not None
            self._drive(channel, child.access, specs, child)
        except SandboxUnavailable as exc:
            self._fail("ERROR", str(exc))
        except Refused as refused:
            self._fail(refused.status, refused.reason)
        except ch.ChildFailed as exc:
            self._fail("RUNTIME_ERROR", f"{self.WITHHELD if self.withhold_child_text else exc}{self._where()}")
        except ch.ProtocolError as exc:
            self._fail("RUNTIME_ERROR",
                       f"the sandboxed process broke the judge's protocol{self._where()}{self._said(exc)}")
        except DeviceError as exc:
            self._fail("RUNTIME_ERROR", f"the device failed{self._where()}{self._said(exc)}")
        except ch.ChildGone:  # classified below, from how the process ended: let it finish ending
            if child.proc is not None:
                child.proc.wait_exit(EXIT_WAIT_SECONDS)
        finally:  # every path, exceptions of our own included: nothing of the child outlives the phase
            self._job_limit_reached = child.close()
        if child.judge_overran:
            self._fail("ERROR", f"the judge's own work (inputs and references) took over {child.judge_work_s:g} s "
                       f"during {PHASE_NAMES[self.kind]}{self._where()}: a fault of the judge, not the "
                       "kernel's")
        if child.proc is not None:
            outcome = child.proc.outcome()
            self.result.output = outcome.output
            if self.result.status is None and len(self._done) < len(self.cases):
                self._classify_end(outcome)
            elif outcome.pids_refused and self.result.status in ("WRONG_ANSWER", "RUNTIME_ERROR") and \
                    not self.withhold_child_text:
                self.result.reason += f"; {threads_refused_note(self._limits().nproc)}"
        return self.result

    @property
    def _wall_s(self) -> float:
        if self.kind != "test":
            return self.job.limits.benchmark_s
        on_cpu = self.job.kind == "emulated" or self.job.interpreted  # GPU tests run by the CPU
        return self.job.limits.emulated_check_s if on_cpu else self.job.limits.check_s

    def _limits(self) -> ProcessLimits:
        host_memory = self.job.device == "host" or self.job.kind == "emulated"
        return ProcessLimits(
            wall_s=self._wall_s,
            cpu_s=int(self._wall_s * 2) + 1,
            memory_bytes=self.job.limits.memory_mb * MIB if host_memory else None,
            # Caps each file user code writes in its tmpfs, and stdout and stderr together (a pipe).
            file_bytes=RUN_BOX_BYTES,
            nproc=self.job.limits.nproc,
            output_bytes=self.job.limits.output_kb * 1024,
            threads_only=True,  # a kernel has no business starting processes
        )

    def _drive(self, channel: ch.ParentChannel, access: DeviceAccess, specs: list[list[BufferSpec]],
               child: PhaseChild) -> None:
        alive = child.alive
        caller = Caller(channel, access, alive, self._rng, withheld=self.WITHHELD if self.withhold_child_text else None,
                        pause=child.pause, secret=self.withhold_child_text)
        channel.expect(ch.READY, alive)
        child.ready()
        overhead = None
        if self.kind != "test" and self.job.device == "host":
            caller.calibrate_floor()
        elif self.kind != "test":
            overhead = overhead_bound(caller.calibrate())
        channel.send(ch.LOAD)
        channel.expect(ch.READY, alive)
        for index, case in enumerate(self.cases):
            self._current = index
            caller.setup_case(specs[index], call_args(self.job.problem, case))
            try:
                self._run_case(index, caller, overhead)
            except Refused as refused:
                raise Refused(refused.status, f"{CASE_LABELS[self.kind]} '{case.name}': {refused.reason}") from None
            if self.result.status is not None:
                return
            caller.end_case()
            self._done.add(index)
        channel.send(ch.QUIT)

    def _run_case(self, index: int, caller: Caller, overhead: float | None) -> None:
        if self.kind == "test":
            self._test_case(index, caller)
        else:
            self._bench_case(index, caller, overhead)

    def _test_case(self, index: int, caller: Caller) -> None:
        case = self.cases[index]
        inputs, expected = self._prepare(index)  # the reference runs beside the call from here on
        for name, values in inputs.items():
            caller.access.write(name, values)
        caller.poison()
        timing = caller.call(check_poison=False)  # the whole output is compared below
        outputs = caller.outputs_now()
        with self._judge_work():  # the comparison is the judge's work too
            message = modified_inputs(caller.access, inputs) or check_outputs(
                self.job.problem, case, inputs, outputs, expected=self._expected(expected))
        if message:
            message = f"{message}. {reproduce_hint(self.job.problem.slug, self.job.test_seed)}"
        payload = {"case": case.name, "index": index, "total": len(self.cases), "passed": message is None,
                   "message": message, "seconds": round(timing.ms / 1e3, 6), "seed": self.job.test_seed}
        self.result.cases.append(payload)
        self.job.emit(TEST_RESULT, payload)
        if message:
            self._fail("WRONG_ANSWER", f"test '{case.name}' failed: {message}")

    def _bench_case(self, index: int, caller: Caller, overhead: float | None) -> None:
        case = self.cases[index]
        bench = BenchCase(caller=caller, problem=self.job.problem, case=case,
                          inputs=lambda input_set: self._inputs(index, input_set), device=self.job.kind,
                          budget_s=self.job.limits.case_budget_s, overhead_ms=overhead,
                          peaks=(_env_float("HIPJUDGE_PEAK_GBPS"), _env_float("HIPJUDGE_PEAK_GFLOPS")))
        payload = {"case": case.name, "index": index, "total": len(self.cases), **bench.run(self._rng)}
        self.result.cases.append(payload)
        self.job.emit(BENCHMARK_RESULT, payload)

    def _limit_passed(self) -> bool:
        return self._child is None or self._child.limit_passed()

    # ---- how the child ended ------------------------------------------------------------------
    def _said(self, exc: Exception) -> str:
        """': <what went wrong>', or nothing where the kernel could have chosen it on secret inputs."""
        return "" if self.withhold_child_text else f": {exc}"

    def _where(self) -> str:
        label = "ranked case" if self.kind == "ranked" else "case"
        return f" in {label} '{self.cases[self._current].name}'" if self._current is not None else ""

    def _classify_end(self, outcome: Outcome) -> None:
        limits = self._limits()
        status, reason = verdict(outcome, Ending(
            phase=PHASE_NAMES[self.kind], where=self._where(), wall_s=self._wall_s,
            ram_bytes=limits.ram_cap(DEFAULT_RAM_BYTES), threads=limits.nproc,
            job_limit_reached=self._job_limit_reached, emulated=self.job.kind == "emulated",
            output_cap_bytes=limits.file_bytes))
        if self.withhold_child_text and status == "RUNTIME_ERROR":
            # The exit status, the signal, which limit: the kernel's to choose on the secret inputs.
            reason = f"the program failed{self._where()} ({self.WITHHELD_ENDING})"
        self._fail(status, reason)


def _env_float(name: str) -> float | None:
    value = os.environ.get(name)
    return float(value) if value else None

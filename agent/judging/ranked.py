"""The ranked pass of a leaderboard job: the results that rank.

After the tests and the public benchmark passed, the kernel runs on the problem's `ranked` cases
(shapes unlike every public one) with inputs drawn from the platform's secret seed, new for each
judging and absent from the child until the parent writes a case's inputs into the shared buffers
just before its calls. For each case:

1. Determinism: the kernel runs twice on the same inputs. The first result is checked against
   the reference; the second must equal the first bit for bit on an exact problem, within the
   problem's tolerance otherwise. A kernel that reads uninitialised or stale memory, or races,
   fails here even where its first answer was right.
2. Timing: a fixed number of timed runs, each on a set of inputs the kernel has never seen (no
   work carried over from an earlier call can pay), written while the child is paused, each run's
   output checked, and the problem's own solution timed right after each run on the same inputs.
   The speedup is the median over these pairs of the reference's time over the kernel's.

The reference runs in a sandboxed process of its own, never in the submission's: code in the
user's process could slow a library loaded beside it and so inflate the speedup. Nothing shown from
this pass is derived from what the kernel can choose by looking at the secret inputs: not what it
prints or says, not where its result is wrong, how many elements differ, where it wrote past a
buffer, its exit status, nor its single runs (the fastest, the slowest, their spread). A failed
ranked case says which case and that it failed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from typing import Any

import numpy as np

from agent.devices.base import DeviceAccess
from agent.devices.memory import BufferSpec
from agent.harness import channel as ch
from agent.harness.calls import Caller, Refused
from agent.harness.phase_child import PhaseChild
from agent.judging.bench import BenchCase
from agent.judging.phase import JobContext, Phase, PhaseResult, buffer_specs, call_args, case_seed
from agent.judging.stats import geometric_mean, geometric_mean_interval
from agent.judging.verify import check_outputs, compare, modified_inputs
from agent.problems.bundle import Case, Tolerance
from agent.protocol import RANKED_RESULT

# Timed runs per ranked case, each on fresh inputs and verified. Fixed, not stopped by a precision
# rule or a budget: how many runs there were must not depend on the kernel's pace. 20: the speedup
# is a median over pairs of runs, which a handful of pairs leaves to chance.
RANKED_RUNS = 20
REFERENCE_FAILED = "the problem's own solution, timed beside yours for the speedup, failed (a judge error)"


def ranked_secret(seed: int) -> bytes:
    """The ranked inputs depend on the platform's seed alone: the same judging gives the same inputs
    on any agent, and nothing of the public phases' per-job secret."""
    return hashlib.sha256(b"hipjudge-ranked/" + seed.to_bytes(8, "little")).digest()


def runs_differ(name: str, first: np.ndarray, second: np.ndarray, tolerance: Tolerance) -> str | None:
    """How a second run's output differs from the first's: bit for bit on an exact problem."""
    if tolerance.exact:
        same = np.array_equal(first.reshape(-1).view(np.uint8), second.reshape(-1).view(np.uint8))
        return None if same else "the two results are not bit-identical"
    return None if compare(name, second, first, tolerance, reveal=False) is None else \
        "the two results differ beyond the tolerance"


class ReferenceChild:
    """The problem's own solution in a sandboxed process of its own, driven like the submission.
    Whatever fails here is the judge's fault: it ends the job in ERROR, never the user's verdict."""

    def __init__(self, phase: Phase, library_fd: int, specs: list[list[BufferSpec]]) -> None:
        self.child = PhaseChild(replace(phase.job, libraries=[library_fd],
                                        triton_cache=phase.job.reference_triton_cache), name="reference", specs=specs,
                                limits=phase._limits())
        self.rng = phase._rng
        self.caller: Caller | None = None

    def __enter__(self) -> ReferenceChild:
        try:
            with _judge_error():
                access = self.child.open_device()
                channel = self.child.start()
                self.caller = Caller(channel, access, self.child.alive, self.rng, pause=self.child.pause)
                channel.expect(ch.READY, self.child.alive)
                if self.child.job.device == "host":  # timed as the submission's calls are
                    self.caller.calibrate_floor()
                channel.send(ch.LOAD)
                channel.expect(ch.READY, self.child.alive)
        except BaseException:
            self.child.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.child.close()

    def start_case(self, specs: list[BufferSpec], args: list[dict[str, Any]]) -> None:
        assert self.caller is not None
        with _judge_error():
            self.caller.setup_case(specs, args)

    def timed(self, inputs: dict[str, np.ndarray]) -> float:
        """One call on `inputs`, timed as the submission's are (by the clock rule, from memory): the
        parent's clock on the host, the events on a GPU (this process runs only our code, so its
        events are not claims)."""
        assert self.caller is not None
        access = self.caller.access

        def write() -> None:
            for name, values in inputs.items():
                access.write(name, values)

        with _judge_error():
            result = self.caller.timed(write)
        return result.ms if self.child.job.device == "host" else result.event_ms

    def end_case(self) -> None:
        assert self.caller is not None
        with _judge_error():
            self.caller.end_case()


@contextmanager
def _judge_error() -> Iterator[None]:
    """Anything the reference's process or device does wrong, as the judge error it is."""
    try:
        yield
    except Exception as exc:
        detail = exc.reason if isinstance(exc, Refused) else str(exc) or type(exc).__name__
        raise Refused("ERROR", f"{REFERENCE_FAILED}: {detail}") from None


class RankedPhase(Phase):
    withhold_child_text = True

    def __init__(self, *, cases: list[Case], job: JobContext, seed: int, reference_fd: int | None) -> None:
        super().__init__(kind="ranked", cases=cases, job=job)
        self.secret = ranked_secret(seed)
        self.reference_fd = reference_fd
        self.reference: ReferenceChild | None = None

    def run(self) -> PhaseResult:
        result = super().run()
        result.output = ""  # what the program printed could carry the secret inputs
        return result

    def _inputs(self, index: int, input_set: str) -> dict[str, np.ndarray]:
        return self._generate(index, case_seed(self.secret, "ranked", index, input_set))

    @contextmanager
    def _judge_work(self) -> Iterator[None]:
        """Both children's wall clocks stand still while the judge works: the partner's too."""
        with ExitStack() as stack:
            stack.enter_context(super()._judge_work())
            if self.reference is not None:
                stack.enter_context(self.reference.child.judge_work())
            yield

    def _drive(self, channel: ch.ParentChannel, access: DeviceAccess, specs: list[list[BufferSpec]],
               child: PhaseChild) -> None:
        if self.reference_fd is None:
            super()._drive(channel, access, specs, child)
            return
        with ReferenceChild(self, self.reference_fd, specs) as reference:
            self.reference = reference
            super()._drive(channel, access, specs, child)

    def _run_case(self, index: int, caller: Caller, overhead: float | None) -> None:
        case, problem = self.cases[index], self.job.problem
        self._twice(index, caller, self._inputs(index, "A"))
        if self.reference is not None:
            self.reference.start_case(buffer_specs(problem, case), call_args(problem, case))
        bench = BenchCase(caller=caller, problem=problem, case=case,
                          inputs=lambda input_set: self._inputs(index, input_set), device=self.job.kind,
                          budget_s=self.job.limits.case_budget_s, overhead_ms=overhead, reveal_values=False,
                          partner=self.reference.timed if self.reference is not None else None,
                          expect_later=lambda inputs: self._expect_later(index, inputs),
                          limit_passed=self._limit_passed, judge_work=self._judge_work)
        payload = {"case": case.name, "index": index, "total": len(self.cases),
                   **bench.run_fresh(self._rng, RANKED_RUNS)}
        payload.setdefault("reference_mean_ms", None)
        payload.setdefault("speedup", None)
        if self.reference is not None:
            self.reference.end_case()
        self.result.cases.append(payload)
        self.job.emit(RANKED_RESULT, payload)

    def _twice(self, index: int, caller: Caller, inputs: dict[str, np.ndarray]) -> None:
        """The determinism check: two calls on the same inputs, the first checked against the reference."""
        case, problem = self.cases[index], self.job.problem
        expected = self._expect_later(index, inputs)  # beside the first call: nothing here is timed
        runs = []
        for attempt in range(2):
            for name, values in inputs.items():
                caller.access.write(name, values)
            caller.poison()
            caller.call(check_poison=False)  # the whole output is compared below
            outputs = caller.outputs_now()
            if message := modified_inputs(caller.access, inputs, name=False):
                raise Refused("WRONG_ANSWER", message)
            if attempt == 0 and (message := check_outputs(problem, case, inputs, outputs, reveal=False,
                                                          expected=self._expected(expected))):
                raise Refused("WRONG_ANSWER", f"wrong result on the ranked inputs: {message}")
            runs.append(outputs)
        for name, first in runs[0].items():
            if differ := runs_differ(name, first, runs[1][name], problem.tolerance):
                raise Refused("WRONG_ANSWER", f"not deterministic: a second run on the same inputs gave a "
                              f"different result ({differ}): a kernel must not read uninitialised or stale "
                              "memory, nor race")


def ranked_summary(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """RESULT.summary.ranked of a passed pass: the score is the geometric mean of the cases' means
    with its 95 % interval, the speedup the geometric mean of the cases' (None without a reference)."""
    means = [c["mean_ms"] for c in cases]
    speedups = [c.get("speedup") for c in cases]
    return {"passed": True, "reason": "", "score_ms": geometric_mean(means),
            "ci95_ms": list(geometric_mean_interval(means, [tuple(c["ci95_ms"]) for c in cases])),
            "speedup": geometric_mean([s for s in speedups if s is not None]) if None not in speedups else None,
            "cases": cases}


def failed_summary(reason: str) -> dict[str, Any]:
    return {"passed": False, "reason": reason, "score_ms": None, "ci95_ms": None, "speedup": None, "cases": []}

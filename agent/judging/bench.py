"""One benchmark case, driven by the trusted parent.

The public benchmark (`run`): warm-up calls, then timed runs until the standard error is small or
the case's budget is spent. Before each timed run the parent poisons the outputs, pauses the child,
changes a few input elements (agent.judging.verify.Mutation), evicts the buffers (host) or flushes the
GPU's caches, and starts its clock as it resumes the child with GO (agent.harness.calls: the clock rule);
after it, the parent draws whether to verify that run (the child cannot know which) and, if so,
copies its outputs at once and checks them against the reference for the changed inputs. Then
timed calls on sets of entirely fresh inputs, written while the child is paused: their outputs are
verified and their times compared with those of calls on changed inputs timed right next to them
(work carried over from earlier calls shows there).

Verifying costs no budget: the budget counts the parent's preparation and the calls only.

The ranked pass (`run_fresh`) times every run on fresh inputs, and with a `partner` (the problem's
own solution in a sandboxed process of its own) follows each timed run at once by one timed call of
the partner on the same inputs, so both series see the same moments of a noisy machine and their
ratio, the speedup, keeps little of it.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agent.devices.base import DeviceAccess
from agent.harness.calls import Caller, Refused
from agent.judging.expected import PendingExpected
from agent.judging.stats import summarize
from agent.judging.timing_checks import MIN_RUNS, fresh_anomaly, gpu_times, implausible
from agent.judging.verify import Mutation, check_outputs, modified_inputs
from agent.problems.bundle import Case, Problem

# Fresh input sets, each timed once after the runs on set A, next to a neighbour: a call on set A
# with a few changes. Both timed calls of a round follow the same steps (an untimed call on set A,
# which also lets a kernel holding state catch up with set A; the inputs written; the timed call)
# and a coin picks which comes first. When only the neighbour followed an untimed call and the
# fresh call always came first, an honest kernel's fresh calls ran a steady 2-2.5x slower through a
# whole run on a machine whose other processes thrash the caches: near the 3x that marks work
# carried over. The fastest fresh call is compared with the fastest neighbour: both are measured
# under the same load. On a busy machine a call now and then waits for a CPU, so more rounds
# follow, one at a time, while the comparison is not yet fair: while every fresh call so far is
# much slower than every neighbour (an honest kernel gets more chances), or while every neighbour
# is still much slower than the timed runs were (a kernel carrying work over from earlier calls
# gets a neighbour that shows its real speed).
SECRET_RUN_STATS = ("std_ms", "min_ms", "max_ms", "rel_stderr")
FRESH_SETS = ("B", "C", "D", "E", "F", "G", "H", "I")
FRESH_ROUNDS_ALWAYS = 2
NOISY_NEIGHBOURS = 1.25  # the fastest neighbour against the fastest timed run
BENCH_DEFAULTS: dict[str, Any] = {"warmup": 2, "min_runs": MIN_RUNS, "max_runs": 200, "rel_err": 0.005,
                                  # input elements changed before each timed run; share and cap of runs verified
                                  "mutations": 64, "verify_fraction": 0.1, "max_verified": 3}


@dataclass
class BenchCase:
    caller: Caller
    problem: Problem
    case: Case
    inputs: Callable[[str], dict[str, np.ndarray]]  # input set ("A", "B", "C") -> the parent's inputs
    device: str  # host | hip | cuda | emulated
    budget_s: float
    overhead_ms: float | None  # GPU: how far events may fall below the parent's clock; host: None
    peaks: tuple[float | None, float | None] = (None, None)  # overrides of PEAK_GBPS / PEAK_GFLOPS
    settings: dict[str, Any] = field(default_factory=lambda: dict(BENCH_DEFAULTS))
    # One timed call of the reference on the given inputs (ms), interleaved with the kernel's runs.
    partner: Callable[[dict[str, np.ndarray]], float] | None = None
    reveal_values: bool = True  # False: a wrong result is named by its place only (secret inputs)
    # The ranked pass: each run's reference on a worker thread (agent.judging.expected), started after the
    # partner's timed call and joined before the next timed call, beside the next run's generation.
    expect_later: Callable[[dict[str, np.ndarray]], PendingExpected] | None = None
    limit_passed: Callable[[], bool] = lambda: False
    # The judge's own waits, which the child's wall clock does not count (agent.sandbox.watchdog).
    judge_work: Callable[[], AbstractContextManager[None]] = nullcontext

    @property
    def access(self) -> DeviceAccess:
        return self.caller.access

    def write(self, inputs: dict[str, np.ndarray]) -> None:
        for name, values in inputs.items():
            self.access.write(name, values)

    def timed_call(self, mutation: Mutation | None = None, fresh: dict[str, np.ndarray] | None = None
                   ) -> tuple[float, float]:
        """(parent's ms, event ms) of one call by the clock rule (Caller.timed): the input changes,
        or a whole set of fresh inputs, are written while the child is paused, and the call starts
        from memory."""
        def write() -> None:
            if mutation is not None:
                mutation.apply(self.access)
            if fresh is not None:
                self.write(fresh)

        result = self.caller.timed(write)
        return result.ms, result.event_ms

    def run(self, rng: np.random.Generator) -> dict[str, Any]:
        s = self.settings
        original = self.inputs("A")
        self.write(original)
        for _ in range(s["warmup"]):
            self._untimed_call()
        walls: list[float] = []
        events: list[float] = []
        verified = 0
        forced = int(rng.integers(0, s["min_runs"]))  # one of the first runs is always verified
        spent = 0.0
        while len(walls) < s["max_runs"]:
            began = time.monotonic()
            mutation = Mutation.draw(original, s["mutations"], rng, keep=self.problem.kept_inputs)
            wall, event = self.timed_call(mutation)
            walls.append(wall)
            events.append(event)
            run = len(walls) - 1
            keep = verified < s["max_verified"] and (run == forced or rng.random() < s["verify_fraction"])
            outputs = self.caller.outputs_now() if keep else None
            mutation.undo(self.access, original)
            spent += time.monotonic() - began
            if outputs is not None:
                verified += 1
                message = check_outputs(self.problem, self.case, mutation.applied_to(original), outputs,
                                        reveal=self.reveal_values)
                if message:
                    raise Refused("WRONG_ANSWER", "a timed run on changed inputs gave a wrong result (results "
                                  f"cached or work skipped?): run {run + 1}: {message}")
            if len(walls) >= s["min_runs"] and (spent > self.budget_s
                                                or _precise(self._clamped(walls, events), s["rel_err"])):
                break
        if message := modified_inputs(self.access, original):
            raise Refused("WRONG_ANSWER", message)
        rounds: list[tuple[float, float, float, float]] = []  # fresh wall, event; neighbour wall, event
        timed = min(self._clamped(walls, events))
        for index, input_set in enumerate(FRESH_SETS):
            if index >= FRESH_ROUNDS_ALWAYS:
                neighbours, fresh = self._neighbours_and_fresh(rounds)
                if not fresh_anomaly(neighbours, fresh) and min(neighbours) <= NOISY_NEIGHBOURS * timed + 0.05:
                    break
            rounds.append(self._fresh_round(input_set, original, rng))
        return self._report(walls, events, rounds, [])

    def run_fresh(self, rng: np.random.Generator, runs: int) -> dict[str, Any]:
        """The ranked pass's timing: `runs` timed calls (a number fixed beforehand: when to stop is
        nothing the kernel's pace decides), each on a set of inputs the kernel has never seen,
        written while it is paused, and each verified. Work carried over from an earlier call buys
        nothing here. With a partner, each run is followed by one of its calls on the same inputs."""
        walls: list[float] = []
        events: list[float] = []
        partner: list[float] = []
        upcoming = self.inputs("run0")
        for run in range(runs):
            fresh = upcoming
            wall, event = self.timed_call(fresh=fresh)
            walls.append(wall)
            events.append(event)
            outputs = self.caller.outputs_now()
            if message := modified_inputs(self.access, fresh, name=self.reveal_values):
                raise Refused("WRONG_ANSWER", message)
            if self.partner is not None:
                partner.append(self.partner(fresh))
            # No call is timed from here to the comparison: the reference may run beside the next
            # run's generation (both the parent's work; neither the kernel's nor the partner's time).
            pending = self.expect_later(fresh) if self.expect_later is not None else None
            if run + 1 < runs:
                upcoming = self.inputs(f"run{run + 1}")
            with self.judge_work():
                expected = pending.result(self.limit_passed) if pending is not None else None
                message = check_outputs(self.problem, self.case, fresh, outputs, reveal=self.reveal_values,
                                        expected=expected)
            if message:
                raise Refused("WRONG_ANSWER", f"a timed run gave a wrong result: {message}")
        return self._report(walls, events, [], partner)

    def _fresh_round(self, input_set: str, original: dict[str, np.ndarray],
                     rng: np.random.Generator) -> tuple[float, float, float, float]:
        fresh = self.inputs(input_set)
        if rng.random() < 0.5:
            wall, event = self._fresh_call(fresh, original)
            neighbour_wall, neighbour_event = self._neighbour_call(original, rng)
        else:
            neighbour_wall, neighbour_event = self._neighbour_call(original, rng)
            wall, event = self._fresh_call(fresh, original)
        return wall, event, neighbour_wall, neighbour_event

    def _untimed_call(self) -> None:
        """A whole call on set A (in the buffers now), its time unused."""
        self.caller.poison()
        self.caller.call()

    def _fresh_call(self, fresh: dict[str, np.ndarray], original: dict[str, np.ndarray]) -> tuple[float, float]:
        """A timed call on `fresh`, verified; set A is back in the buffers afterwards."""
        self._untimed_call()
        timed = self.timed_call(fresh=fresh)
        message = check_outputs(self.problem, self.case, fresh, self.caller.outputs_now(), reveal=self.reveal_values)
        if message:
            raise Refused("WRONG_ANSWER", "a timed run on fresh inputs gave a wrong result (are results cached "
                          f"across calls, or is work done only on the first call?): {message}")
        if message := modified_inputs(self.access, fresh):
            raise Refused("WRONG_ANSWER", message)
        self.write(original)
        return timed

    def _neighbour_call(self, original: dict[str, np.ndarray], rng: np.random.Generator) -> tuple[float, float]:
        """A timed call on set A with a few changes (undone afterwards)."""
        self._untimed_call()
        mutation = Mutation.draw(original, self.settings["mutations"], rng, keep=self.problem.kept_inputs)
        timed = self.timed_call(mutation)
        mutation.undo(self.access, original)
        return timed

    def _neighbours_and_fresh(self, rounds: list[tuple[float, float, float, float]]) -> tuple[list[float],
                                                                                              list[float]]:
        """(times of the neighbours, times on fresh inputs), as reported."""
        fresh = self._clamped([r[0] for r in rounds], [r[1] for r in rounds])
        return self._clamped([r[2] for r in rounds], [r[3] for r in rounds]), fresh

    def _clamped(self, walls: list[float], events: list[float]) -> list[float]:
        """The times as reported: the parent's on the host, bounded GPU event times elsewhere."""
        if self.overhead_ms is None:
            return walls
        return gpu_times(events, walls, self.overhead_ms, judge_gaps=False)[0] or walls

    def _report(self, walls: list[float], events: list[float], rounds: list[tuple[float, float, float, float]],
                partner: list[float]) -> dict[str, Any]:
        times = walls
        if self.overhead_ms is not None:
            times, problem = gpu_times(events, walls, self.overhead_ms)
            _, fresh_problem = gpu_times([r[1] for r in rounds], [r[0] for r in rounds], self.overhead_ms,
                                         judge_gaps=False)
            if problem or fresh_problem:
                raise Refused("RUNTIME_ERROR", f"timing cross-check failed: {problem or fresh_problem}")
        if rounds and (anomaly := fresh_anomaly(*self._neighbours_and_fresh(rounds))):
            raise Refused("RUNTIME_ERROR", f"timing cross-check failed: {anomaly}")
        nbytes, flops = self.problem.byte_count(self.case), self.problem.flop_count(self.case)
        if bad := implausible(self.device, min(times), nbytes, flops, *self.peaks,
                              flops_type=self.problem.flops_type):
            raise Refused("RUNTIME_ERROR", f"timing cross-check failed: {bad}")
        payload: dict[str, Any] = summarize(times, flops=flops, nbytes=nbytes).as_dict()
        if not self.reveal_values:
            # The inputs are secret: single runs the kernel paces (the fastest, the slowest, their
            # spread) could spell them. The mean and its interval are the result itself.
            for key in SECRET_RUN_STATS:
                payload.pop(key, None)
        payload["flush_bytes"] = self.access.flush_bytes()
        if partner:
            reference = summarize(partner, flops=flops, nbytes=nbytes)
            payload.update(reference_mean_ms=reference.mean_ms, reference_ci95_ms=list(reference.ci95_ms),
                           speedup=paired_speedup(times, partner))
        return payload


def paired_speedup(times: list[float], partner: list[float]) -> float:
    """The median, over the runs, of the reference's time over the kernel's in the same pair. A pair
    shares the machine's moment (its drift cancels in the ratio) and the median drops the pairs in
    which one call waited for a CPU."""
    return statistics.median(ref / mine for mine, ref in zip(times, partner, strict=True) if mine > 0)


def _precise(times: list[float], rel_err: float) -> bool:
    mean = statistics.fmean(times)
    return mean > 0 and statistics.stdev(times) / math.sqrt(len(times)) / mean < rel_err

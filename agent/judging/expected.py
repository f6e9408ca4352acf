"""The reference's outputs for one set of inputs, computed on a worker thread while the kernel runs.

Where the parent's reference (problems/<slug>/reference.py: NumPy, whose BLAS and large ufuncs
release the GIL) costs more than the kernel, computing it only after the kernel's call leaves the
two in a row. A `PendingExpected` starts the reference the moment a case's inputs exist, and the
parent joins it only when the outputs must be compared, so it runs beside the sandbox's start, the
writes of the inputs, the call and the copy of the outputs. Nothing is kept across jobs or cases:
each pending reference belongs to one set of inputs of one phase, generated fresh from that job's
secret.

The rule: a reference thread never runs while a call is timed, on any device. On the host the
kernel runs on the same CPUs and memory as the reference; on a GPU the parent's clock bounds the
event times from below and the child's launch needs a CPU, so a busy CPU would raise the times
reported and could trip the timing cross-checks. The calibration of the call's cost is timing too.
So only untimed work overlaps: the child's start and the calls of the test phase (which has no
calibration), the ranked pass's determinism calls, and in the ranked pass's timed runs the parent's
generation of the next run's inputs (the thread starts after the partner's timed call and is joined
before the next timed call). The public benchmark keeps computing its references in the parent's own
thread: a verified run is drawn after its timed call, and the next timed call follows at once.

Failures are the same as without the thread: the reference's own exception is raised again where
the parent joins it (same type, message and traceback through reference.py). A reference that
overruns is bounded by the child's limits: the parent stops waiting once the child's watchdog ended
it (its wall clock, a cancel, the job's limit) and the phase classifies that end as before. No
reference thread outlives its phase: the phase waits for any it left (one whose case failed first)
before it returns, unless the job was cancelled or reached its limit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping

import numpy as np

from agent.harness.channel import ChildGone
from agent.problems.bundle import Case, Problem

POLL_SECONDS = 0.02  # how soon a wait notices that the child was ended


class PendingExpected:
    def __init__(self, problem: Problem, case: Case, inputs: Mapping[str, np.ndarray]) -> None:
        """Starts the reference on `inputs`, which the caller must not change from now on (the
        reference works on its own copies, made in the thread)."""
        self._outputs: dict[str, np.ndarray] | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._compute, args=(problem, case, dict(inputs)),
                                        name=f"reference-{case.name}"[:60], daemon=True)
        self._thread.start()

    def _compute(self, problem: Problem, case: Case, inputs: dict[str, np.ndarray]) -> None:
        try:
            self._outputs = problem.expected(case, inputs)
        except BaseException as exc:  # noqa: BLE001 - raised again, unchanged, where the parent joins
            self._error = exc

    def result(self, limit_passed: Callable[[], bool]) -> dict[str, np.ndarray]:
        """The reference's outputs once computed. Raises the reference's own exception, or
        ChildGone once `limit_passed` (the child's watchdog ended it, or would have: its wall clock,
        a cancel, the job's limit); the phase then classifies how the child ended."""
        while not self._join(POLL_SECONDS):
            if limit_passed():
                raise ChildGone("the child's limit passed while the reference was being computed")
        if self._error is not None:
            raise self._error
        outputs, self._outputs = self._outputs, None  # handed over: nothing here keeps them alive
        assert outputs is not None, "a reference's result is taken once"
        return outputs

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def settle(self, give_up: Callable[[], bool]) -> None:
        """Waits for the thread to end (its result unused) unless `give_up` says to stop waiting."""
        while not self._join(POLL_SECONDS) and not give_up():
            pass

    def _join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()


def job_over(cancel: threading.Event, job_deadline: float | None) -> Callable[[], bool]:
    """True once the job was cancelled or its limit passed: no more waiting for leftover threads."""
    return lambda: cancel.is_set() or (job_deadline is not None and time.monotonic() >= job_deadline)

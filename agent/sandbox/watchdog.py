"""A thread that kills a sandboxed process at its deadline or on cancel, whatever the parent is
doing meanwhile (reading from the child, verifying, computing a reference): no parsing and no
blocking call of the parent stands between a deadline and the kill.

It sets the process's `timed_out` / `cancelled` flags before killing, so the verdict says why.

The phase's wall clock bounds the kernel, not the judge: while the parent does its own work
(generating inputs, waiting for a reference) the clock stands still (`judge_work`), so an honest
kernel's verdict never depends on how fast the judge's machine makes inputs and references. That
work has a budget of its own (`judge_work_s`); past it the watchdog ends the child and says the
judge overran (`judge_overran`), a fault of the judge and never the kernel's. The job's limit bounds
everything. The child's CPU meanwhile stays bounded by its own CPU limit.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from agent.sandbox.modes import SandboxedProcess

POLL_SECONDS = 0.02


class Watchdog:
    def __init__(self, proc: SandboxedProcess, *, wall_s: float, cancel: threading.Event,
                 job_deadline: float | None = None, judge_work_s: float = math.inf) -> None:
        """`wall_s` counts from the process's start, less the judge's own work; `job_deadline` is a
        time.monotonic() after which the whole job is over (the agent's 2 h limit), whichever
        comes first; `judge_work_s` bounds the judge's own work in the phase."""
        self.proc = proc
        self._phase_deadline = proc.started + wall_s
        self._job_deadline = job_deadline if job_deadline is not None else math.inf
        self.judge_work_s = judge_work_s
        self.cancel = cancel
        self.fired = False  # the deadline (not a cancel) ended the process
        self.judge_overran = False  # the judge's own work went over its budget
        self.job_limit_reached = False  # the job's own limit, not the phase's wall clock, ended the process
        self._held_s = 0.0  # judge's work done, seconds
        self._held_since: float | None = None
        self._depth = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="sandbox-watchdog", daemon=True)

    @contextmanager
    def judge_work(self) -> Iterator[None]:
        """The parent's own work: the phase's wall clock stands still meanwhile (nesting counts once)."""
        with self._lock:
            self._depth += 1
            if self._depth == 1:
                self._held_since = time.monotonic()
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0 and self._held_since is not None:
                    self._held_s += time.monotonic() - self._held_since
                    self._held_since = None

    def _held(self, now: float) -> float:
        return self._held_s + (now - self._held_since if self._held_since is not None else 0.0)

    @property
    def deadline(self) -> float:
        """When the child's time is up as things stand (infinite for the phase while the judge works)."""
        with self._lock:
            phase = math.inf if self._held_since is not None else self._phase_deadline + self._held_s
        return min(phase, self._job_deadline)

    def over_budget(self) -> bool:
        with self._lock:
            return self._held(time.monotonic()) > self.judge_work_s

    def start(self) -> Watchdog:
        self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            if self.proc.poll() is not None:
                return
            if self.cancel.is_set():
                self.proc.cancelled = True
                self.proc.kill()
                return
            if self.over_budget():
                self.fired = self.judge_overran = True
                self.proc.kill()
                return
            now = time.monotonic()
            if now >= self.deadline:
                self.job_limit_reached = now >= self._job_deadline
                self.fired = self.proc.timed_out = True
                self.proc.kill()
                return

    def alive(self) -> bool:
        """The process runs and the watchdog has not ended it."""
        return self.proc.poll() is None and not (self.proc.timed_out or self.proc.cancelled)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)

"""A thread that kills a sandboxed process at its deadline or on cancel, whatever the parent is
doing meanwhile (reading from the child, verifying, computing a reference): no parsing and no
blocking call of the parent stands between a deadline and the kill.

It sets the process's `timed_out` / `cancelled` flags before killing, so the verdict says why.
"""

from __future__ import annotations

import threading
import time

from agent.sandbox.modes import SandboxedProcess

POLL_SECONDS = 0.02


class Watchdog:
    def __init__(self, proc: SandboxedProcess, *, wall_s: float, cancel: threading.Event,
                 job_deadline: float | None = None) -> None:
        """`wall_s` counts from the process's start; `job_deadline` is a time.monotonic() after
        which the whole job is over (the agent's 2 h limit), whichever comes first."""
        self.proc = proc
        self.deadline = proc.started + wall_s
        self.job_deadline_first = job_deadline is not None and job_deadline < self.deadline
        if job_deadline is not None:
            self.deadline = min(self.deadline, job_deadline)
        self.cancel = cancel
        self.fired = False  # the deadline (not a cancel) ended the process
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="sandbox-watchdog", daemon=True)

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
            if time.monotonic() >= self.deadline:
                self.fired = self.proc.timed_out = True
                self.proc.kill()
                return

    @property
    def job_limit_reached(self) -> bool:
        """The job's own limit, not the phase's wall clock, ended the process."""
        return self.fired and self.job_deadline_first

    def alive(self) -> bool:
        """The process runs and the watchdog has not ended it."""
        return self.proc.poll() is None and not (self.proc.timed_out or self.proc.cancelled)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)

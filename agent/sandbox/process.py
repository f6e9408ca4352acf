"""A program running in a sandbox: waiting for it, killing everything it started, and what is
known of how it ended (Outcome). Made by agent.sandbox.core.Sandbox.spawn."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from agent.sandbox.cgroups import SandboxCgroup
from agent.sandbox.fd_handoff import FdHandoff
from agent.sandbox.output_drain import OutputDrain
from agent.sandbox.pause import PauseError, user_processes
from agent.sandbox.resources import ProcessLimits


@dataclass
class Outcome:
    returncode: int | None
    signal: int | None
    timed_out: bool
    cancelled: bool
    wall_s: float
    output: str  # the tail of stdout+stderr, capped
    output_overflowed: bool = False  # it wrote more than its output cap and the pipe was closed on it
    oom_killed: bool = False  # the memory cap ended a process of the sandbox
    pids_refused: bool = False  # the pids cap refused a new thread or process at least once

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.cancelled


@dataclass
class SandboxedProcess:
    popen: subprocess.Popen[bytes]
    drain: OutputDrain  # its stdout and stderr
    limits: ProcessLimits
    started: float = field(default_factory=time.monotonic)
    timed_out: bool = False
    cancelled: bool = False
    cgroup: SandboxCgroup | None = None
    on_kill: Callable[[], None] | None = None  # e.g. `docker kill <name>`: the CLI is not the container
    handoff: FdHandoff | None = None  # descriptors offered to a container, withdrawn at the end
    _counters: tuple[int, int] | None = None  # (oom kills, pids refusals) read before the cgroup went

    def pause_pids(self) -> list[int]:
        """The processes agent.sandbox.pause stops: the one running the user's code at the bottom of what
        the sandbox started, or in a container the process that took the descriptor handoff (the
        `docker run` client is not the container)."""
        if self.handoff is not None or self.on_kill is not None:
            peer = self.handoff.peer_pid if self.handoff is not None else 0
            if peer <= 0:
                raise PauseError("the container's process is not visible from the agent")
            return [peer]
        return user_processes(self.popen.pid)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def poll(self) -> int | None:
        return self.popen.poll()

    def kill(self) -> None:
        """Kill everything of the sandbox: its process group, every process of its cgroup, the
        container. Safe to call more than once and after the end."""
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.on_kill is not None:
            stop, self.on_kill = self.on_kill, None  # once: it stops the container by name
            stop()
        if self.cgroup is not None:
            self.cgroup.kill_all()
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores SIGKILL
            pass
        if self.cgroup is not None and self._counters is None:
            self._counters = (self.cgroup.oom_kills(), self.cgroup.pids_refusals())
            self.cgroup.remove()
        if self.handoff is not None:
            self.handoff.close()
            self.handoff = None

    def wait_exit(self, seconds: float) -> None:
        """Give a process that is ending a moment to end by itself (its exit status is the verdict)."""
        try:
            self.popen.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            pass

    def wait(self, cancel: threading.Event | None = None, tick: Callable[[], bool] | None = None) -> Outcome:
        """Wait for the end, the wall limit or a cancel; `tick` may return True to stop early."""
        deadline = self.started + self.limits.wall_s
        try:
            while self.popen.poll() is None:
                if cancel is not None and cancel.is_set():
                    self.cancelled = True
                    break
                if time.monotonic() >= deadline:
                    self.timed_out = True
                    break
                if tick is not None and tick():
                    break
                try:
                    self.popen.wait(timeout=0.05)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            self.kill()
        return self.outcome()

    def outcome(self) -> Outcome:
        rc = self.popen.returncode
        sig = None
        if rc is not None and rc < 0:
            sig = -rc
        elif rc is not None and rc > 128 and rc - 128 in signal.Signals._value2member_map_:
            sig = rc - 128  # bwrap reports a signalled child as 128 + signal
        if sig == signal.SIGXCPU:
            self.timed_out = True
        counters = self._counters
        if counters is None and self.cgroup is not None:
            counters = (self.cgroup.oom_kills(), self.cgroup.pids_refusals())
        ooms, refusals = counters or (0, 0)
        if rc is not None:  # ended: every writer is gone, or soon (a container's client)
            self.drain.finish()
        return Outcome(rc, sig, self.timed_out, self.cancelled, self.elapsed, self.drain.text(),
                       output_overflowed=self.drain.overflowed, oom_killed=ooms > 0, pids_refused=refusals > 0)

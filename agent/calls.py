"""One call of the kernel, driven and checked by the trusted parent.

For every call the parent poisons the outputs, sends GO and waits for DONE; the call's time is
its own measurement (agent.channel). Right after DONE, before anything else can happen, it
samples outputs for leftover poison (a call that reports its end before its work is done fails)
and checks the guard zones around every buffer (a write past a buffer's end is named).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from agent.channel import AWAKE, BUFFERS, CASE, FREE, GO_EMPTY, WAKE, ParentChannel, call_elapsed_ns, close_fds
from agent.devices.base import DeviceAccess
from agent.devices.gpu import IPC_HANDLE_BYTES
from agent.shared import BufferSpec, is_poison

SAMPLE_HOST = 64  # output elements checked for poison after every call: cheap reads of shared memory
SAMPLE_GPU = 16  # one copy from the device each


class Refused(Exception):
    """A verdict reached during a call: unwinds to the phase, which reports it."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


@dataclass(frozen=True)
class CallTime:
    ms: float  # the parent's measurement: GO sent -> DONE queued
    event_ms: float  # what the child's GPU events said (0 on the host): a claim


class Caller:
    def __init__(self, channel: ParentChannel, access: DeviceAccess, alive: Callable[[], bool],
                 rng: np.random.Generator, *, withheld: str | None = None) -> None:
        self.channel, self.access, self.alive, self.rng = channel, access, alive, rng
        self.withheld = withheld  # said instead of the child's own error sentence, when set
        self.seq = 0
        self.outputs: list[BufferSpec] = []
        self.sample = SAMPLE_HOST if access.name == "host" else SAMPLE_GPU

    def setup_case(self, specs: list[BufferSpec], args: list[dict[str, Any]]) -> None:
        self.outputs = [s for s in specs if s.output]
        case = {"buffers": self.access.case_message(specs), "args": args}
        # Format 4 (Python 3.4 and later): a docker image's python3 may be another version than ours.
        self.channel.send(CASE, marshal.dumps(case, 4))
        # Only a device that shares buffers as descriptors takes any; elsewhere the kernel closes them.
        shared = self.channel.expect(BUFFERS, self.alive, max_fds=len(specs) if self.access.shares_fds else 0)
        body = shared.body
        handles = [body[i: i + IPC_HANDLE_BYTES] for i in range(0, len(body), IPC_HANDLE_BYTES)]
        try:
            self.access.attach(handles, shared.fds)
        finally:
            close_fds(shared.fds)  # mapped where they were due; the parent keeps no descriptor

    def end_case(self) -> None:
        self.channel.send(FREE)
        self.access.release()

    def poison(self) -> None:
        for spec in self.outputs:
            self.access.poison(spec.name)

    def wake(self) -> None:
        """The next GO is near: the child is woken now, outside the timed interval, and answers
        AWAKE; `call(awake=True)` sends GO the moment it reads that."""
        self.channel.send(WAKE)

    def call(self, *, empty: bool = False, library: int = 0, check_poison: bool = True,
             awake: bool = False) -> CallTime:
        """One call; with `awake`, after a wake(): GO goes out the moment the child says it runs."""
        self.seq += 1
        self.access.settle()  # the inputs, the poison and the guards are in place before the child runs
        if awake:
            self.channel.expect(AWAKE, self.alive)
        started = self.channel.go(self.seq, GO_EMPTY if empty else 0, library)
        done = self.channel.done(self.seq, self.alive)
        elapsed_ms = call_elapsed_ns(started, done) / 1e6
        if not done.ok:
            raise Refused("RUNTIME_ERROR", self.withheld or done.error or "the call failed")
        if not empty:
            if check_poison:
                self._check_for_poison()
            guard = self.access.check_guards()
            if guard:
                raise Refused("RUNTIME_ERROR", guard)
        return CallTime(elapsed_ms, done.event_ms)

    def _check_for_poison(self) -> None:
        for spec in self.outputs:
            if spec.dtype.kind in "iub" and spec.dtype.itemsize < 4:
                continue  # a one- or two-byte poison is a value a correct output may hold
            indices = self.rng.integers(0, spec.size, min(self.sample, spec.size))
            poisoned = is_poison(self.access.read_elements(spec.name, indices))
            if poisoned.any():
                at = int(indices[int(np.flatnonzero(poisoned)[0])])
                where = ", ".join(str(i) for i in np.unravel_index(at, spec.shape))
                raise Refused("WRONG_ANSWER", f"{spec.name}[{where}] still held the poison value when the call "
                              "reported its end: solution() must finish all its work (every thread and stream) "
                              "before it returns")

    def outputs_now(self) -> dict[str, np.ndarray]:
        return {spec.name: self.access.read(spec.name) for spec in self.outputs}

"""One call of the kernel, driven and checked by the trusted parent.

For every call the parent poisons the outputs, sends GO and waits for DONE; the call's time is
its own measurement (agent.harness.channel). A timed call follows the clock rule: the child is paused
(agent.sandbox.pause) before the parent writes anything the outputs depend on, and the clock starts as it
is resumed with GO. Right after DONE, before anything else can happen, the parent samples outputs
for leftover poison (a call that reports its end before its work is done fails) and checks the
guard zones around every buffer (a write past a buffer's end is named).

With `secret` (the ranked pass) no sentence names an element, a byte offset or anything else the
kernel could choose by looking at the secret inputs: only that the call was wrong.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from agent.devices.base import DeviceAccess
from agent.devices.gpu import IPC_HANDLE_BYTES
from agent.devices.memory import BufferSpec, is_poison
from agent.harness.channel import (
    BUFFERS,
    CASE,
    FREE,
    GO_EMPTY,
    ParentChannel,
    ProtocolError,
    call_elapsed_ns,
    close_fds,
)
from agent.sandbox.pause import ChildPause, GpuResidue, PauseError

SAMPLE_HOST = 64  # output elements checked for poison after every call: cheap reads of shared memory
SAMPLE_GPU = 16  # one copy from the device each
UNASKED = "a message sent while no call was running"
SECRET_POISON = ("an output still held the poison value when the call reported its end (which element is "
                 "withheld: the inputs are secret)")
SECRET_GUARD = "a write outside a buffer (where is withheld: the inputs are secret)"


class Refused(Exception):
    """A verdict reached during a call: unwinds to the phase, which reports it."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


CALIBRATION_CALLS = 20


@dataclass(frozen=True)
class CallTime:
    ms: float  # the parent's measurement: clock started (GO sent, child resumed) -> DONE queued, less the floor
    event_ms: float  # what the child's GPU events said (0 on the host): a claim


class Caller:
    def __init__(self, channel: ParentChannel, access: DeviceAccess, alive: Callable[[], bool],
                 rng: np.random.Generator, *, withheld: str | None = None,
                 pause: Callable[[], tuple[ChildPause, GpuResidue | None]] | None = None,
                 secret: bool = False) -> None:
        self.channel, self.access, self.alive, self.rng = channel, access, alive, rng
        self.withheld = withheld  # said instead of the child's own error sentence, when set
        self.secret = secret
        self._pause_factory = pause
        self._pause: tuple[ChildPause, GpuResidue | None] | None = None
        self.seq = 0
        self.floor_ms = 0.0  # subtracted from every timed call's time (calibrate_floor)
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

    def call(self, *, empty: bool = False, library: int = 0, check_poison: bool = True) -> CallTime:
        """One untimed call on what the buffers hold now (the tests, warm-ups)."""
        self.access.settle()  # the inputs, the poison and the guards are in place before the child runs
        return self._go(empty=empty, library=library, check_poison=check_poison)

    def timed(self, write: Callable[[], None] | None = None, *, empty: bool = False, library: int = 0) -> CallTime:
        """One call timed by the clock rule. An untimed empty call first, so that the handshake's
        code in both processes runs as warm as in the calibration's back-to-back empty calls (the
        parent's work between runs, verifying in the ranked pass, left it cold); then the outputs
        poisoned, the child paused, `write` (what changes the inputs), every buffer evicted (the
        parent's writes leave lines in the cache), and the clock started as the child resumes."""
        if not empty:
            self.call(empty=True)
            self.poison()
        pause, residue = self._paused()
        try:
            pause.stop()
        except PauseError as exc:
            raise Refused("RUNTIME_ERROR", str(exc)) from None
        if self.channel.pending():
            raise ProtocolError(UNASKED)
        if write is not None:
            write()
        self.access.evict()
        self.access.settle()
        if not empty:
            self._idle_while_paused(residue)
        timed = self._go(empty=empty, library=library, resume=tuple(pause.pids))
        return CallTime(max(timed.ms - self.floor_ms, 0.0), timed.event_ms)

    def calibrate(self) -> list[float]:
        """The times of CALIBRATION_CALLS empty calls, each timed as a timed call is (paused, the
        parent's cache flush, resumed with GO). Called before any code of the user's is in the
        child, so that no kernel can inflate them."""
        return [self.timed(empty=True).ms for _ in range(CALIBRATION_CALLS)]

    def calibrate_floor(self) -> None:
        """Where the parent's clock is the time reported (the host): the least a call costs around
        the kernel (the pause's resume, GO, DONE) is subtracted from every timed call, so that the
        score is the kernel's own work; a forger gains at most this, which no honest call is below."""
        self.floor_ms = min(self.calibrate())

    def _paused(self) -> tuple[ChildPause, GpuResidue | None]:
        if self._pause is None:
            if self._pause_factory is None:
                raise Refused("ERROR", "the judge cannot pause the sandboxed process here: no call can be timed")
            try:
                self._pause = self._pause_factory()
            except PauseError as exc:
                raise Refused("ERROR", f"the judge cannot pause the sandboxed process here: {exc}") from None
        return self._pause

    def _go(self, *, empty: bool, library: int, check_poison: bool = True, resume: tuple[int, ...] = ()) -> CallTime:
        self.seq += 1
        if not resume and self.channel.pending():
            raise ProtocolError(UNASKED)
        started = self.channel.go(self.seq, GO_EMPTY if empty else 0, library, resume)
        done = self.channel.done(self.seq, self.alive, started)
        elapsed_ms = call_elapsed_ns(started, done) / 1e6
        if not done.ok:
            raise Refused("RUNTIME_ERROR", self.withheld or done.error or "the call failed")
        if not empty:
            if check_poison:
                self._check_for_poison()
            guard = self.access.check_guards()
            if guard:
                raise Refused("RUNTIME_ERROR", SECRET_GUARD if self.secret else guard)
        return CallTime(elapsed_ms, done.event_ms)

    def _idle_while_paused(self, residue: GpuResidue | None) -> None:
        """On a real GPU the device goes on with what the child left running there while its host
        threads are stopped: none of the child's waves may be resident, and no output written."""
        if self.access.name not in ("hip", "cuda"):
            return  # the host's and the emulator's work runs on the child's own threads, stopped now
        if residue is not None and residue.waves():
            raise Refused("RUNTIME_ERROR", "work of the program's kept running on the GPU between calls: all work "
                          "must be done inside solution(), on the default stream")
        for spec in self.outputs:
            if spec.dtype.kind in "iub" and spec.dtype.itemsize < 4:
                continue
            indices = self.rng.integers(0, spec.size, min(self.sample, spec.size))
            if not is_poison(self.access.read_elements(spec.name, indices)).all():
                raise Refused("RUNTIME_ERROR", f"{spec.name} was written while the program was paused between "
                              "calls: all work must be done inside solution(), on the default stream")

    def _check_for_poison(self) -> None:
        for spec in self.outputs:
            if spec.dtype.kind in "iub" and spec.dtype.itemsize < 4:
                continue  # a one- or two-byte poison is a value a correct output may hold
            indices = self.rng.integers(0, spec.size, min(self.sample, spec.size))
            poisoned = is_poison(self.access.read_elements(spec.name, indices))
            if poisoned.any():
                if self.secret:
                    raise Refused("WRONG_ANSWER", SECRET_POISON)
                at = int(indices[int(np.flatnonzero(poisoned)[0])])
                where = ", ".join(str(i) for i in np.unravel_index(at, spec.shape))
                raise Refused("WRONG_ANSWER", f"{spec.name}[{where}] still held the poison value when the call "
                              "reported its end: solution() must finish all its work (every thread and stream) "
                              "before it returns")

    def outputs_now(self) -> dict[str, np.ndarray]:
        return {spec.name: self.access.read(spec.name) for spec in self.outputs}

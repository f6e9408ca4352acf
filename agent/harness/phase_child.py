"""One sandboxed child of a phase and everything the parent holds for it: the device access (the
shared memory), the control socket, the process and its watchdog. A phase drives one (the
submission's); the ranked pass drives a second one beside it (the problem's own solution).

It is built a piece at a time so that `close()`, called on every path, ends whatever exists.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.devices import open_access
from agent.devices.base import DeviceAccess
from agent.devices.memory import BufferSpec
from agent.harness import channel as ch
from agent.harness.calls import Refused
from agent.sandbox.boxfs import fresh_box
from agent.sandbox.modes import BOX, BoxLayout, SandboxedProcess
from agent.sandbox.pause import ChildPause, GpuResidue, PauseError, all_stopped
from agent.sandbox.resources import MIB, ProcessLimits
from agent.sandbox.watchdog import Watchdog

if TYPE_CHECKING:
    from agent.judging.phase import JobContext

TRITON_CACHE_NAME = "triton-cache"  # agent.languages.triton.precompile.CACHE_NAME, in the run box
# The run phase's private /box (a tmpfs only its sandbox sees): the child writes no file of the
# judge's, so this only bounds what user code writes there.
RUN_BOX_BYTES = 64 * MIB
# The judge's own work in one phase (generating inputs, waiting for references): the ranked pass
# makes fresh inputs and a reference for every timed run, which for the largest cases is minutes of
# one core's work. Past this the phase ends as the judge's fault (ERROR), never the kernel's.
JUDGE_WORK_S = 1800.0


class PhaseChild:
    def __init__(self, job: JobContext, *, name: str, specs: list[list[BufferSpec]], limits: ProcessLimits) -> None:
        self.job, self.name, self.specs, self.limits = job, name, specs, limits
        self.access: DeviceAccess | None = None
        self.proc: SandboxedProcess | None = None
        self.watchdog: Watchdog | None = None
        self.channel: ch.ParentChannel | None = None
        self._sockets: tuple[Any, ...] = ()
        self._freezer: ChildPause | None = None  # stops the child while the judge works, once it is READY
        self._work_depth = 0

    def open_device(self) -> DeviceAccess:
        """The parent's side of the device for these cases (DeviceError when it cannot be opened)."""
        self.access = open_access(self.job.device, self.specs, evict_helper=self.job.native_helper,
                                  emulator_runtime=self.job.emulator_runtime)
        return self.access

    def start(self) -> ch.ParentChannel:
        """The child, running under its watchdog; the channel to it."""
        assert self.access is not None
        parent_sock, child_sock = self._sockets = ch.pair()
        self.proc = self._spawn(fresh_box(self.job.job_dir, f"{self.name}-box"), child_sock, self.access)
        child_sock.close()
        self.watchdog = Watchdog(self.proc, wall_s=self.limits.wall_s, cancel=self.job.cancel,
                                 job_deadline=self.job.job_deadline, judge_work_s=JUDGE_WORK_S).start()
        self.channel = ch.ParentChannel(parent_sock, ch.stamped_sender(self.job.native_helper))
        return self.channel

    def pause(self) -> tuple[ChildPause, GpuResidue | None]:
        """What stops and resumes this child around the parent's writes (PauseError when it cannot
        be found); asked once the child has said READY, when all its processes exist."""
        assert self.proc is not None
        pids = self.proc.pause_pids()
        return ChildPause(pids), GpuResidue(pids) if self.job.device in ("hip", "cuda") else None

    def alive(self) -> bool:
        return self.watchdog is not None and self.watchdog.alive()

    def limit_passed(self) -> bool:
        """The watchdog ended the child (its wall clock, a cancel, the job's limit), or would have by
        now had the child not exited first: how long the parent may wait on its own work."""
        dog = self.watchdog
        return dog is None or dog.fired or self.job.cancel.is_set() or time.monotonic() >= dog.deadline \
            or dog.over_budget()

    def ready(self) -> None:
        """The child said READY: its processes all exist, and from now on it is stopped whenever the
        judge works (judge_work). Where they cannot be found it is not, and no call can be timed
        either (agent.harness.calls says so)."""
        assert self.proc is not None
        try:
            self._freezer = ChildPause(self.proc.pause_pids())
        except PauseError:
            self._freezer = None

    @contextmanager
    def judge_work(self) -> Iterator[None]:
        """The parent's own work (inputs, references, comparisons): the child's wall clock stands
        still, and the child itself is stopped (SIGSTOP, every thread, as for a timed call). A
        thread of the user's that ran on meanwhile (one spinning from the first call on) would take
        the judge's CPU at no cost to the kernel's clock and make the verdict depend on how busy the
        machine is: stopped, it runs only in the kernel's own time, under its limits."""
        outermost = self._work_depth == 0
        self._work_depth += 1
        freezer = self._freezer
        # Already stopped by a timed call (its inputs written while paused): that call resumes it.
        freeze = outermost and freezer is not None and self.alive() and not all_stopped(freezer.pids)
        try:
            if freeze:
                assert freezer is not None
                try:
                    freezer.stop()
                except PauseError as exc:
                    raise Refused("RUNTIME_ERROR", str(exc)) from None
            if self.watchdog is None:
                yield
            else:
                with self.watchdog.judge_work():
                    yield
        finally:
            self._work_depth -= 1
            if freeze:
                assert freezer is not None
                freezer.resume()

    @property
    def judge_overran(self) -> bool:
        return self.watchdog is not None and self.watchdog.judge_overran

    @property
    def judge_work_s(self) -> float:
        return self.watchdog.judge_work_s if self.watchdog is not None else JUDGE_WORK_S

    def close(self) -> bool:
        """Ends everything that exists: nothing of the child outlives it. True when the job's time
        limit is what the watchdog ended the child for."""
        job_limit_reached = False
        if self.watchdog is not None:
            self.watchdog.stop()
            job_limit_reached = self.watchdog.job_limit_reached
        if self.proc is not None:
            self.proc.kill()
        for sock in self._sockets:
            sock.close()
        if self.access is not None:
            self.access.close()
        return job_limit_reached

    def _spawn(self, box: Path, child_sock: Any, access: DeviceAccess) -> SandboxedProcess:
        """The child, with /box a private tmpfs (nothing of the disk; without a sandbox it is the
        host directory `box`) and everything it
        needs by descriptor: the control socket, the shared memory, the libraries as sealed
        memfds. The agent's code is the sandbox's read-only copy (agent.sandbox.child_tree)."""
        job = self.job
        arena = access.arena.fd if access.arena is not None else -1
        runtime = job.runtime_fd if job.runtime_fd is not None else -1
        fds = (child_sock.fileno(), *(fd for fd in (arena, runtime) if fd >= 0), *job.libraries)
        env, files = _runtime_env(job.device), {}
        if job.triton_cache is not None:  # read-only: Triton finds its kernels there and writes nothing
            files[TRITON_CACHE_NAME] = job.triton_cache
            env["TRITON_CACHE_DIR"] = job.sandbox.translate(box, f"{BOX}/{TRITON_CACHE_NAME}")
        return job.sandbox.spawn(
            [job.sandbox.python, *job.sandbox.python_flags, "-m", job.child_module, job.device,
             str(child_sock.fileno()), str(arena), str(runtime), *map(str, job.libraries)],
            box=box,
            limits=self.limits,
            device=job.device,
            env=env,
            pass_fds=fds,
            layout=BoxLayout(size_bytes=RUN_BOX_BYTES, files=files),
        )


def _runtime_env(device: str) -> dict[str, str]:
    paths = [p for p in ("/opt/rocm/lib", "/usr/local/cuda/lib64") if Path(p).is_dir()]
    return {"LD_LIBRARY_PATH": ":".join(paths)} if paths and device in ("hip", "cuda") else {}

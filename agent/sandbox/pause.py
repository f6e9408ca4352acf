"""Pausing the sandboxed child around the parent's writes: the clock rule's mechanism.

Nothing the outputs of a timed call depend on (an input change, a set of fresh inputs) may reach a
child that runs before the parent's clock starts: a thread of the kernel's that watches the inputs
would compute the answer in time nobody measures. Writing the inputs inside the timed interval
does not help either: a thread can work behind the writer's head, and whatever of the write the
parent subtracts again becomes free time. So the parent stops every process of the sandbox
(SIGSTOP, which no process can block or ignore, and which stops all of a process's threads) and
waits until the kernel reports each of their threads stopped; then it writes, evicts, starts its
clock and resumes the child (SIGCONT) in one native step just before GO (agent.harness.channel).

The process is found once per child, by the kernel's parent links from the process the sandbox
started: the one at the bottom of that tree (below bwrap and its init, which run none of the user's
code and which it cannot reach: no ptrace, no writes to another process's memory), or the peer the
descriptor handoff saw (a container). The child cannot add one later: its seccomp filter allows
threads, not processes. Each pause stops and resumes that one process, all of its threads.

On a real GPU the device goes on running what the child left there while its host threads are
stopped; `GpuResidue` reads what the AMD kernel driver reports of the child's resident waves.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

STOPPED_STATES = frozenset("tTZX")  # stopped, traced, or already gone
# How long every thread of the child gets to stop. A thread asleep in a system call stops at once;
# one running stops at its next tick. Only a thread stuck in an uninterruptible call takes longer,
# and a generous bound keeps a loaded machine from ever deciding the verdict.
STOP_BOUND_S = 5.0
KFD_PROC = Path("/sys/class/kfd/kfd/proc")


class PauseError(Exception):
    """The child could not be paused; the message says why, for the verdict."""


def _stat_fields(pid: int | str, task: int | str | None = None) -> list[str] | None:
    path = f"/proc/{pid}/stat" if task is None else f"/proc/{pid}/task/{task}/stat"
    try:
        with open(path, "rb") as fh:
            raw = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    # The command name may hold spaces and parentheses: the fields start after its last ')'.
    return raw[raw.rfind(")") + 2:].split()


def descendants(root: int, proc: Path = Path("/proc")) -> list[int]:
    """`root` and every process below it, by the parent links the kernel reports, parents first."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(entry.name)
        if fields and len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop(0)
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def user_processes(root: int) -> list[int]:
    """The processes of the tree below `root` that have none below them: the child running the
    user's code (root itself without a sandbox)."""
    tree = descendants(root)
    parents = {int(fields[1]) for pid in tree if (fields := _stat_fields(pid)) and len(fields) > 1}
    return [pid for pid in tree if pid not in parents]


def all_stopped(pids: Iterable[int]) -> bool:
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue  # gone: it runs nothing
        for task in tasks:
            fields = _stat_fields(pid, task)
            if fields and fields[0] not in STOPPED_STATES:
                return False
    return True


class ChildPause:
    """SIGSTOP and SIGCONT for the processes of one sandboxed child."""

    def __init__(self, pids: list[int]) -> None:
        if not pids:
            raise PauseError("no process of the sandbox was found to pause")
        self.pids = pids
        self.paused = False

    def stop(self, bound_s: float = STOP_BOUND_S) -> None:
        """Every thread of every process stopped; PauseError when one is still running after bound_s."""
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                continue
        self.paused = True
        deadline = time.monotonic() + bound_s
        pause = 0.0
        while not all_stopped(self.pids):
            if time.monotonic() > deadline:
                raise PauseError(f"a thread of the program kept running {bound_s:g} s after the judge paused it "
                                 "between calls")
            time.sleep(pause)
            pause = min(0.001, pause + 0.0001)

    def resume(self) -> None:
        """SIGCONT from Python (the timed path resumes in native code: agent.harness.channel)."""
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                continue
        self.paused = False


class GpuResidue:
    """Waves of the child's still resident on an AMD GPU while its host threads are stopped: the
    kernel driver (amdkfd) reports them per process as `stats_<gpu>/cu_occupancy`. An honest child
    synchronises before it answers DONE, so it has none; a kernel left running (a persistent
    kernel watching the inputs) has some. Elsewhere (NVIDIA, older kernels) nothing is reported
    and the outputs check of agent.harness.calls is the only guard."""

    def __init__(self, pids: list[int], root: Path = KFD_PROC) -> None:
        self.files = [path for pid in pids for path in sorted((root / str(pid)).glob("stats_*/cu_occupancy"))]

    def waves(self) -> int:
        total = 0
        for path in self.files:
            try:
                total += int(path.read_text().split()[0] or 0)
            except (OSError, ValueError, IndexError):
                continue
        return total

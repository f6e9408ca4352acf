"""Resource limits of a job and of one sandboxed process.

A job request may lower or raise the defaults, but never past the agent's ceilings: the platform
is trusted, yet a typo there must not let one job hold a GPU VM for an hour.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

MIB = 1024 * 1024
GIB = 1024 * MIB


@dataclass(frozen=True)
class ResourceLimits:
    compile_s: float = 60.0  # wall clock for the compiler
    check_s: float = 30.0  # wall clock for the whole check phase (all test cases)
    # The same on the emulated device: the host's CPU runs every GPU thread, and it shares its cores
    # with the whole local pool, so a check that is quick on an idle machine takes many times longer
    # on a busy one. What is judged there is the answer, never the time.
    emulated_check_s: float = 120.0
    benchmark_s: float = 90.0  # wall clock for the whole benchmark phase
    case_budget_s: float = 2.0  # timed-loop budget per benchmark case (the stopping rule's cap)
    memory_mb: int = 4096  # address space of the user's process on the host device
    output_kb: int = 64  # what we keep of the user's stdout/stderr and the compiler's output
    nproc: int = 64  # extra processes/threads the user's code may start

    @classmethod
    def from_request(cls, raw: Any) -> ResourceLimits:
        """Build limits from a job request, clamped to the ceilings; raises ValueError naming the key."""
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping):
            raise ValueError("limits: must be an object")
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in raw.items():
            if key not in known:
                raise ValueError(f"limits.{key}: unknown limit (known: {', '.join(known)})")
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ValueError(f"limits.{key}: must be a positive number")
            values[key] = type(getattr(cls(), key))(min(value, CEILINGS[key]))
        return replace(cls(), **values)

    def as_dict(self) -> dict[str, float | int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


CEILINGS: dict[str, float] = {
    "compile_s": 180,
    "check_s": 300,
    "emulated_check_s": 300,
    "benchmark_s": 600,
    "case_budget_s": 30,
    "memory_mb": 65536,
    "output_kb": 1024,
    "nproc": 256,
}


@dataclass(frozen=True)
class ProcessLimits:
    """What the sandbox enforces on one child process tree."""

    wall_s: float
    cpu_s: int
    memory_bytes: int | None  # RLIMIT_AS; None where a GPU runtime needs huge virtual reservations
    file_bytes: int  # RLIMIT_FSIZE: caps any file the child writes; and its stdout+stderr pipe in all
    nproc: int  # processes/threads beyond those the sandbox itself needs
    output_bytes: int  # how much of stdout/stderr we read back
    # Threads only, no new processes (bwrap: a seccomp filter). RLIMIT_NPROC never applies to
    # root, which is who runs the agent on a GPU VM, so it alone cannot stop a fork bomb.
    threads_only: bool = False
    # RAM the whole sandbox may hold: its processes, its /tmp and /box (tmpfs) and the memfds it
    # fills. A memory cgroup enforces it where the agent may create one; it binds GPU runtimes,
    # which RLIMIT_AS breaks. None: memory_bytes, or the sandbox's default.
    ram_bytes: int | None = None
    tmp_bytes: int | None = None  # size of the private /tmp; None: a quarter of the RAM cap

    def ram_cap(self, default: int) -> int:
        return self.ram_bytes or self.memory_bytes or default

    def tmp_size(self, default_ram: int) -> int:
        if self.tmp_bytes is not None:
            return self.tmp_bytes
        return min(max(self.ram_cap(default_ram) // 4, 64 * MIB), 4 * GIB)

"""How a sandboxed child ended before its phase was done, as a verdict and a sentence a user can
act on. What the sandbox measured (agent.sandbox.process.Outcome) is the evidence: the exit status,
the signal, and what its cgroup saw (an OOM kill, a refused thread). The child's own output is the
user's, so only the emulator's fault line is quoted from it, cut.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

from agent.sandbox.modes import Outcome
from agent.sandbox.resources import MIB

EMULATOR_FAULT_EXIT = 86  # agent.emulator.build.FAULT_EXIT_CODE: a `hjemu: ` line says what
SIGNAL_HINTS = {
    signal.SIGSEGV: "segmentation fault (SIGSEGV): an out-of-bounds or invalid memory access",
    signal.SIGBUS: "bus error (SIGBUS): a misaligned or invalid memory access",
    signal.SIGFPE: "arithmetic exception (SIGFPE), e.g. an integer division by zero",
    signal.SIGABRT: "aborted (SIGABRT), often an allocation beyond the memory limit or a failed assertion",
    signal.SIGILL: "illegal instruction (SIGILL)",
    signal.SIGXFSZ: "wrote more output than allowed (SIGXFSZ)",
    signal.SIGPIPE: "wrote more output than allowed (SIGPIPE: the judge stopped reading it)",
    signal.SIGKILL: "killed (SIGKILL)",
}


@dataclass(frozen=True)
class Ending:
    """What the phase knows besides the outcome: where it was and which limits applied."""

    phase: str  # "the tests" | "the benchmark"
    where: str  # " in case 'n=1'" or ""
    wall_s: float
    ram_bytes: int  # the sandbox's memory cap (processes, /tmp, /box and memfds it fills)
    threads: int  # the threads and processes the user's code may start
    job_limit_reached: bool = False
    emulated: bool = False
    output_cap_bytes: int = 64 * MIB  # what it may write to stdout and stderr together


def verdict(outcome: Outcome, ending: Ending) -> tuple[str, str]:
    """(status, reason) for a child that ended before every case was done."""
    where = ending.where
    fault = [ln for ln in outcome.output.splitlines() if ln.startswith("hjemu: ")]
    if outcome.cancelled:
        return "CANCELLED", "the job was cancelled"
    if outcome.timed_out and ending.job_limit_reached:
        return "TIME_LIMIT_EXCEEDED", ("the job reached the agent's time limit for one job (all its phases "
                                       f"together){where}")
    if outcome.timed_out:
        return "TIME_LIMIT_EXCEEDED", f"{ending.phase} did not finish within the {ending.wall_s:g} s limit{where}"
    if outcome.oom_killed:
        return "RUNTIME_ERROR", (f"the program ran out of memory{where}: it went over the memory limit of "
                                 f"{ending.ram_bytes // MIB} MiB (its threads, its files in /tmp and /box together) "
                                 "and was killed")
    if ending.emulated and outcome.returncode == EMULATOR_FAULT_EXIT and fault:
        return "RUNTIME_ERROR", f"the kernel faulted{where}: {fault[-1].removeprefix('hjemu: ')[:1000]}"
    if outcome.output_overflowed and outcome.returncode != 0:
        return "RUNTIME_ERROR", (f"the program wrote more than {ending.output_cap_bytes // MIB} MiB to stdout and "
                                 f"stderr{where}, the limit, and failed when the judge stopped reading")
    if outcome.pids_refused:
        return "RUNTIME_ERROR", (f"the program tried to start too many threads{where} (the limit is {ending.threads} "
                                 f"threads and processes); the sandbox refused them, and then "
                                 f"{_how_it_ended(outcome, '')}")
    return "RUNTIME_ERROR", _how_it_ended(outcome, where)


def threads_refused_note(threads: int) -> str:
    """Added to a verdict the phase reached by itself (a wrong answer) when the sandbox refused
    threads on the way: the likely reason for it."""
    return f"the sandbox refused some of the threads the program tried to start (the limit is {threads})"


def _how_it_ended(outcome: Outcome, where: str) -> str:
    if outcome.signal is not None:
        try:
            hint = SIGNAL_HINTS.get(signal.Signals(outcome.signal), f"signal {outcome.signal}")
        except ValueError:
            hint = f"signal {outcome.signal}"
        return f"the program crashed{where}: {hint}"
    if outcome.returncode == 0:
        return f"the program exited{where} before solution() returned (exit code 0): solution must return normally"
    return f"the program exited with code {outcome.returncode}{where}"

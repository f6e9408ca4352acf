"""Runs conformance kernels on the emulated device in one process, as the judge's child loads them.

    python -m tests.agent.emulator.conformance_child API RUNTIME SPEC_JSON

libhjemu.so is loaded with RTLD_GLOBAL, then each kernel library (several entries compiled into
one; conformance.py) as agent/harness/child.py loads a solution. For each run, each case: inputs drawn by
the problem's reference, outputs poisoned as the judge poisons them, the entry's `solution` called,
launch errors read as the judge reads them, outputs compared with agent.judging.verify. One JSON line per
run on stdout, after a `start` line: a fault kills the process (exit 86) and the parent blames the
run that started last; a run marked `isolate` runs in a forked process instead, its fault its verdict.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np

from agent.devices.base import DeviceError
from agent.devices.gpu import GpuDevice, load_runtime
from agent.devices.memory import poison_byte
from agent.harness.child import CTYPES
from agent.judging.verify import check_outputs
from agent.problems.bundle import Problem, load_problem_dir

PROBLEMS = Path(__file__).resolve().parents[3] / "problems"
ISOLATED_SECONDS = 120


def run_case(device: GpuDevice, function: Any, problem: Problem, case_index: int) -> str | None:
    """None when the outputs match, else the judge-style reason (prefixed by the verdict)."""
    case = next(c for i, c in enumerate(problem.tests) if i == case_index)
    inputs = problem.generate(case, np.random.default_rng(1000 + case_index))
    ptrs: dict[str, int] = {}
    outputs: dict[str, np.ndarray] = {}
    for p in problem.signature:
        if not p.pointer:
            continue
        shape = p.shape_for(case.params)
        nbytes = int(np.prod(shape)) * p.dtype.itemsize
        ptrs[p.name] = device.alloc(nbytes, p.name, p.dtype.itemsize)
        if p.output:
            device.memset(ptrs[p.name], poison_byte(p.dtype), nbytes)
            outputs[p.name] = np.empty(shape, dtype=p.dtype)
        else:
            device.upload(ptrs[p.name], inputs[p.name].ctypes.data, nbytes)
    args = [ctypes.c_void_p(ptrs[p.name]) if p.pointer else CTYPES[p.ctype](case.params[p.name])
            for p in problem.signature]
    try:
        function(*args)
        device.synchronize()
        for name, buffer in outputs.items():
            device.download(ptrs[name], buffer.ctypes.data, buffer.nbytes)
        for name, original in inputs.items():
            after = np.empty_like(original)
            device.download(ptrs[name], after.ctypes.data, after.nbytes)
            if after.tobytes() != original.tobytes():
                return (f"WRONG_ANSWER: test '{case.name}' failed: solution modified its input {name} "
                        "(inputs are read-only)")
    except DeviceError as exc:
        return f"RUNTIME_ERROR: case '{case.name}': {exc}"
    finally:
        device.free_all()
    mismatch = check_outputs(problem, case, inputs, outputs)
    return None if mismatch is None else f"WRONG_ANSWER: test '{case.name}' failed: {mismatch}"


def run_cases(device: GpuDevice, function: Any, problem: Problem, indices: list[int], verdicts: list[str]) -> None:
    for index in indices:
        failure = run_case(device, function, problem, index)
        if failure is not None:
            verdicts.append(failure)
            return
    verdicts.append("CHECKED")


def main(argv: list[str]) -> int:
    api, runtime, spec = argv[1], argv[2], json.loads(argv[3])
    device = GpuDevice(api, load_runtime(api, runtime), emulated=True)
    libraries: dict[str, ctypes.CDLL] = {}
    problems: dict[str, Problem] = {}
    for run in spec:
        # Loaded when first needed: a later library's dlopen() is itself part of what is tested
        # (its thread-locals arrive after the first launches ran).
        if run["library"] not in libraries:
            libraries[run["library"]] = ctypes.CDLL(run["library"], mode=ctypes.RTLD_LOCAL)
        function = getattr(libraries[run["library"]], run["symbol"])
        function.restype = None
        if run["problem"] not in problems:
            problems[run["problem"]] = load_problem_dir(PROBLEMS / run["problem"])
        print(json.dumps({"entry": run["entry"], "start": True}), flush=True)
        args = (device, function, problems[run["problem"]], run["cases"])
        verdict = isolated(args) if run.get("isolate") else in_new_thread(args)
        print(json.dumps({"entry": run["entry"], "verdict": verdict}), flush=True)
    return 0


def in_new_thread(args: tuple[Any, ...]) -> str:
    """Each run launches from a new host thread, whose thread-locals no kernel has touched yet:
    every entry meets the first-touch path that issue 29's bug hid in (agent/emulator/README.md)."""
    verdicts: list[str] = []
    thread = threading.Thread(target=run_cases, args=(*args, verdicts))
    thread.start()
    thread.join()
    return verdicts[0]


def isolated(args: tuple[Any, ...]) -> str:
    """The run in a forked process (no kernel has run in this one, so no runtime thread is lost
    by the fork): a fault ends only it, and its `hjemu: ` line is the verdict's reason."""
    sys.stdout.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.dup2(write_end, 2)
        signal.alarm(ISOLATED_SECONDS)
        verdict = in_new_thread(args)
        os.write(write_end, f"\0{verdict}".encode())
        os._exit(0)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    said = b"".join(chunks).decode(errors="replace")
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and "\0" in said:
        return said.rsplit("\0", 1)[1]
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
        return f"TIME_LIMIT_EXCEEDED: more than {ISOLATED_SECONDS} s"
    faults = [line for line in said.splitlines() if line.startswith("hjemu: ")]
    return f"RUNTIME_ERROR: {faults[-1] if faults else said.strip()[-500:]}"


if __name__ == "__main__":
    sys.exit(main(sys.argv))

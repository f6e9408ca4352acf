"""The untrusted side of the harness: runs inside the sandbox, in the same process as user code.

`python -m agent.child /box/spec.json` loads /box/solution.so, and for each case reads the input
buffers the parent wrote (it never sees a seed), poisons the outputs, calls `solution`, and writes
outputs plus one JSON line per case to /box/results.jsonl. Nothing it reports is trusted: the
parent recomputes the reference from its own inputs and cross-checks the times with its own clock.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agent.devices import Device, DeviceError, open_device

CTYPES: dict[str, Any] = {
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "int": ctypes.c_int32,
    "unsigned int": ctypes.c_uint32,
    "int64_t": ctypes.c_int64,
    "size_t": ctypes.c_uint64,
    "uint8_t": ctypes.c_uint8,
}


def poison(shape: list[int], dtype: np.dtype) -> np.ndarray:
    """NaN for floats, 0xA5 bytes for integers: an output the kernel never wrote cannot pass."""
    if dtype.kind == "f":
        return np.full(shape, np.nan, dtype=dtype)
    return np.frombuffer(b"\xa5" * (int(np.prod(shape)) * dtype.itemsize), dtype=dtype).reshape(shape).copy()


VERIFIED_MARK = "verified"  # the parent creates <case dir>/verified once it has checked the case


class Report:
    def __init__(self, path: Path) -> None:
        self._fh = path.open("a", buffering=1)

    def line(self, **fields: Any) -> None:
        self._fh.write(json.dumps(fields) + "\n")
        self._fh.flush()


class CaseRunner:
    def __init__(self, device: Device, solution: Callable[..., None], spec: dict[str, Any]) -> None:
        self.device = device
        self.solution = solution
        self.signature = spec["signature"]

    def prepare(self, case: dict[str, Any], set_dir: Path) -> tuple[dict[str, int], dict[str, np.ndarray]]:
        """Allocate device buffers, upload the inputs of one input set; return pointers and inputs."""
        ptrs: dict[str, int] = {}
        inputs: dict[str, np.ndarray] = {}
        for p in self.signature:
            if not p["pointer"]:
                continue
            meta = case["buffers"][p["name"]]
            nbytes = int(np.prod(meta["shape"])) * np.dtype(meta["dtype"]).itemsize
            ptrs[p["name"]] = self.device.alloc(nbytes)
        self.load_inputs(case, set_dir, ptrs, inputs)
        return ptrs, inputs

    def load_inputs(self, case: dict[str, Any], set_dir: Path, ptrs: dict[str, int],
                    inputs: dict[str, np.ndarray]) -> None:
        for p in self.signature:
            if p["pointer"] and not p["output"]:
                arr = np.load(set_dir / f"in_{p['name']}.npy", allow_pickle=False)
                self.device.upload(ptrs[p["name"]], arr)
                inputs[p["name"]] = arr
        for p in self.signature:
            if p["output"]:
                meta = case["buffers"][p["name"]]
                self.device.upload(ptrs[p["name"]], poison(meta["shape"], np.dtype(meta["dtype"])))
        self.device.synchronize()

    def args(self, case: dict[str, Any], ptrs: dict[str, int]) -> list[Any]:
        out: list[Any] = []
        for p in self.signature:
            if p["pointer"]:
                out.append(ctypes.c_void_p(ptrs[p["name"]]))
            else:
                out.append(CTYPES[p["ctype"]](case["scalars"][p["name"]]))
        return out

    def save_outputs(self, case: dict[str, Any], set_dir: Path, ptrs: dict[str, int], suffix: str = "") -> None:
        for p in self.signature:
            if p["output"]:
                meta = case["buffers"][p["name"]]
                host = np.empty(meta["shape"], dtype=meta["dtype"])
                self.device.download(ptrs[p["name"]], host)
                np.save(set_dir / f"out_{p['name']}{suffix}.npy", host, allow_pickle=False)

    def modified_inputs(self, ptrs: dict[str, int], inputs: dict[str, np.ndarray]) -> list[str]:
        changed = []
        for name, original in inputs.items():
            now = np.empty_like(original)
            self.device.download(ptrs[name], now)
            if now.tobytes() != original.tobytes():
                changed.append(name)
        return changed


def run_test_case(runner: CaseRunner, case: dict[str, Any], box: Path) -> dict[str, Any]:
    set_dir = box / case["dir"] / "A"
    ptrs, inputs = runner.prepare(case, set_dir)
    args = runner.args(case, ptrs)
    started = time.perf_counter()
    runner.solution(*args)
    runner.device.synchronize()
    seconds = time.perf_counter() - started
    runner.save_outputs(case, set_dir, ptrs)
    modified = runner.modified_inputs(ptrs, inputs)
    runner.device.free_all()
    return {"seconds": seconds, "inputs_modified": modified}


class Mutator:
    """Changes a few input elements before every timed run and undoes them after.

    A kernel that caches results, replays an earlier output or skips work after the first call
    cannot know which elements changed, nor which runs are kept for the parent to verify (drawn
    after the call). New values are copies of other elements of the same buffer, so they stay in
    the problem's input domain (histogram bins, small integers).
    """

    def __init__(self, runner: CaseRunner, ptrs: dict[str, int], inputs: dict[str, np.ndarray],
                 count: int, rng: np.random.Generator) -> None:
        self.runner, self.ptrs, self.inputs, self.count, self.rng = runner, ptrs, inputs, count, rng
        self.current: dict[str, tuple[list[int], list[int]]] = {}

    def _write(self, name: str, targets: list[int], values: np.ndarray) -> None:
        arr = self.inputs[name]
        for target, value in zip(targets, values, strict=True):
            self.runner.device.upload(self.ptrs[name] + target * arr.itemsize, np.array([value], dtype=arr.dtype))

    def apply(self) -> None:
        self.undo()
        for name, arr in self.inputs.items():
            flat = arr.reshape(-1)
            targets = self.rng.integers(0, flat.size, self.count).tolist()
            sources = self.rng.integers(0, flat.size, self.count).tolist()
            self._write(name, targets, flat[sources])
            self.current[name] = (targets, sources)

    def undo(self) -> None:
        for name, (targets, _) in self.current.items():
            self._write(name, targets, self.inputs[name].reshape(-1)[targets])
        self.current = {}


def run_bench_case(runner: CaseRunner, case: dict[str, Any], box: Path, bench: dict[str, Any]) -> dict[str, Any]:
    """Warm up, then time until the standard error is small or the budget is spent. Every timed
    run sees slightly changed inputs and some runs, drawn at random after the call, keep their
    output for the parent to verify. Then one timed call on each set of entirely fresh inputs
    (B, C): the parent re-checks their outputs, and compares their times with the others."""
    dev = runner.device
    set_dir = box / case["dir"] / "A"
    ptrs, inputs = runner.prepare(case, set_dir)
    args = runner.args(case, ptrs)
    call = lambda: runner.solution(*args)  # noqa: E731
    rng = np.random.default_rng(int.from_bytes(os.urandom(8), "little"))
    mutator = Mutator(runner, ptrs, inputs, bench["mutations"], rng)

    budget_end = time.perf_counter() + bench["budget_s"]
    for _ in range(bench["warmup"]):
        call()
        dev.synchronize()
        if time.perf_counter() > budget_end:
            break
    times: list[float] = []
    walls: list[float] = []
    verified: list[dict[str, Any]] = []
    forced = int(rng.integers(0, bench["min_runs"]))  # one of the first runs is always kept

    def timed() -> tuple[float, float]:
        dev.flush_cache()
        dev.synchronize()
        wall_start = time.perf_counter()
        event_ms = dev.timed_call(call)
        dev.synchronize()
        return event_ms, (time.perf_counter() - wall_start) * 1e3

    budget_end = time.perf_counter() + bench["budget_s"]
    while len(times) < bench["max_runs"]:
        mutator.apply()
        event_ms, wall_ms = timed()
        times.append(event_ms)
        walls.append(wall_ms)
        run = len(times) - 1
        keep = run == forced or rng.random() < bench["verify_fraction"]
        if keep and len(verified) < bench["max_verified"]:
            runner.save_outputs(case, set_dir, ptrs, suffix=f"_run{run}")
            verified.append({"run": run, "mutations": {k: [t, s] for k, (t, s) in mutator.current.items()}})
        if len(times) >= bench["min_runs"]:
            mean = statistics.fmean(times)
            stderr = statistics.stdev(times) / math.sqrt(len(times))
            if mean > 0 and stderr / mean < bench["rel_err"] or time.perf_counter() > budget_end:
                break
    mutator.undo()
    fresh_ms: list[float] = []
    fresh_walls: list[float] = []
    modified: list[str] = []
    for fresh_set in bench["fresh_sets"]:
        fresh_dir = box / case["dir"] / fresh_set
        fresh_inputs: dict[str, np.ndarray] = {}
        runner.load_inputs(case, fresh_dir, ptrs, fresh_inputs)
        event_ms, wall_ms = timed()
        fresh_ms.append(event_ms)
        fresh_walls.append(wall_ms)
        runner.save_outputs(case, fresh_dir, ptrs)
        modified += [name for name in runner.modified_inputs(ptrs, fresh_inputs) if name not in modified]
    flushed = dev.flush_bytes()  # before free_all: on the host it is the size of the case's buffers
    dev.free_all()
    return {"times_ms": times, "walls_ms": walls, "fresh_ms": fresh_ms, "fresh_walls_ms": fresh_walls,
            "inputs_modified": modified,
            "verified": verified, "flush_bytes": flushed}


def wait_until_verified(case_dir: Path, limit_s: float = 600.0) -> None:
    """Hold the next benchmark case until the parent has verified this one: its reference and
    comparisons (0.1-0.6 s of CPU and memory traffic for the host's vector-add) would otherwise
    run beside the next case's timed calls and slow them down by a varying amount."""
    deadline = time.monotonic() + limit_s  # the sandbox's wall clock ends the phase long before
    while not (case_dir / VERIFIED_MARK).exists() and time.monotonic() < deadline:
        time.sleep(0.002)


def main(argv: list[str]) -> int:
    spec_path = Path(argv[1])
    spec = json.loads(spec_path.read_text())
    box = spec_path.parent
    report = Report(box / "results.jsonl")
    try:
        device = open_device(spec["device"], box)
        library = ctypes.CDLL(str(box / "solution.so"), mode=ctypes.RTLD_GLOBAL)
        solution = library.solution
        solution.restype = None
    except (OSError, DeviceError, AttributeError) as exc:
        report.line(event="fatal", error=f"cannot load the solution: {exc}")
        return 3
    runner = CaseRunner(device, solution, spec)
    for index, case in enumerate(spec["cases"]):
        report.line(event="start", index=index)
        try:
            if spec["phase"] == "test":
                result = run_test_case(runner, case, box)
            else:
                result = run_bench_case(runner, case, box, spec["bench"])
        except DeviceError as exc:
            report.line(event="error", index=index, error=str(exc))
            return 4
        report.line(event="done", index=index, **result)
        if spec["phase"] == "bench" and index + 1 < len(spec["cases"]):
            wait_until_verified(box / case["dir"])
    report.line(event="finished")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

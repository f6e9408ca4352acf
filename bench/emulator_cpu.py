"""Where an emulated check's CPU time goes, case by case: a figure a loaded machine does not change.

    .venv/bin/python bench/emulator_cpu.py [--problem leaky-relu ...] [--language hip|cuda]

For each problem's catalogue solution: the CPU seconds of g++ compiling it as the agent does,
without and with the precompiled API header (agent.emulator.build.build_pch); then each test
case the emulated device runs (agent.emulator.budget) in one process as
the judge's child runs it: the CPU seconds (every thread of the process) of drawing the inputs,
of the solution's call (the kernels on the emulator's host threads), and of the reference and the
comparison. bench/emulator.py times the same checks through the agent, wall clock; on a machine
whose load is above its cores, these CPU figures divided by the cores (the kernels use them all)
are the better estimate of an idle machine's wall time.
"""

from __future__ import annotations

import argparse
import ctypes
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.devices.gpu import GpuDevice, load_runtime  # noqa: E402
from agent.devices.memory import poison_byte  # noqa: E402
from agent.emulator.budget import case_bytes, emulated_cases  # noqa: E402
from agent.emulator.build import build_pch, build_runtime, emulator_flags  # noqa: E402
from agent.emulator.rewrite import rewrite_source  # noqa: E402
from agent.emulator.unsupported import WALLS, make_walls  # noqa: E402
from agent.harness.child import CTYPES  # noqa: E402
from agent.judging.verify import check_outputs  # noqa: E402
from agent.problems.bundle import SOURCE_SUFFIX, Case, Problem, load_catalogue  # noqa: E402
from tests.agent.emulator.driver import compile_library  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _cpu(who: int = resource.RUSAGE_SELF) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def compile_cpu(source: str, language: str, work: Path, pch: Path | None) -> float:
    """CPU seconds of g++ compiling the rewritten source as the agent does, with or without the
    precompiled API header (build.build_pch)."""
    path = work / f"compile.{language}.cpp"
    path.write_text(rewrite_source(source, filename=f"solution{SOURCE_SUFFIX[language]}"))
    flags = emulator_flags(language, walls=make_walls(work / WALLS), pch=pch)
    before = _cpu(resource.RUSAGE_CHILDREN)
    subprocess.run(["g++", *flags, "-o", str(work / "compile.so"), str(path)], check=True, capture_output=True)
    return _cpu(resource.RUSAGE_CHILDREN) - before


def profile_case(device: GpuDevice, function: Any, problem: Problem, case: Case,
                 seed: int) -> tuple[float, float, float, bool]:
    """(inputs CPU s, solution CPU s, reference and comparison CPU s, passed)."""
    started = _cpu()
    inputs = problem.generate(case, np.random.default_rng(seed))
    ptrs: dict[str, int] = {}
    outputs: dict[str, np.ndarray] = {}
    for p in problem.signature:
        if p.pointer:
            shape, nbytes = p.shape_for(case.params), int(np.prod(p.shape_for(case.params))) * p.dtype.itemsize
            ptrs[p.name] = device.alloc(nbytes, p.name, p.dtype.itemsize)
            if p.output:
                device.memset(ptrs[p.name], poison_byte(p.dtype), nbytes)
                outputs[p.name] = np.empty(shape, dtype=p.dtype)
            else:
                device.upload(ptrs[p.name], inputs[p.name].ctypes.data, nbytes)
    drawn = _cpu()
    function(*[ctypes.c_void_p(ptrs[p.name]) if p.pointer else CTYPES[p.ctype](case.params[p.name])
               for p in problem.signature])
    device.synchronize()
    ran = _cpu()
    for name, buffer in outputs.items():
        device.download(ptrs[name], buffer.ctypes.data, buffer.nbytes)
    device.free_all()
    passed = check_outputs(problem, case, inputs, outputs) is None
    return drawn - started, ran - drawn, _cpu() - ran, passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problem", action="append", default=[], help="only these problems (default: all)")
    parser.add_argument("--language", choices=("hip", "cuda"), default="hip")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hjemu-cpu-") as tmp:
        work = Path(tmp)
        runtime = build_runtime(work / "cache")
        if runtime is None:
            print("g++ is missing or the runtime does not build", file=sys.stderr)
            return 1
        pch = build_pch(work / "cache", args.language)
        device = GpuDevice(args.language, load_runtime(args.language, str(runtime)), emulated=True)
        load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
        print(f"{args.language}; {load}\n")
        print(f"{'problem':<22}{'case':<26}{'MiB':>7}{'inputs':>8}{'kernels':>9}{'verify':>8}{'CPU s':>8}  ok")
        for problem in load_catalogue(ROOT / "problems"):
            if args.problem and problem.slug not in args.problem:
                continue
            source = (ROOT / "problems" / problem.slug / "solutions" / f"{args.language}{SOURCE_SUFFIX[args.language]}")
            library = ctypes.CDLL(str(compile_library(source.read_text(), args.language, work, source.name)),
                                  mode=ctypes.RTLD_LOCAL)
            function = library.solution
            function.restype = None
            plain, precompiled = (compile_cpu(source.read_text(), args.language, work, folder)
                                  for folder in (None, pch))
            print(f"{problem.slug:<22}{'compile: g++ CPU s':<26}{'':>7}{'':>8}{'':>9}{'':>8}{plain:>8.2f}"
                  f"  {precompiled:.2f} with the precompiled header")
            totals = [0.0, 0.0, 0.0]
            for index, case in enumerate(emulated_cases(problem)[0]):
                parts = profile_case(device, function, problem, case, 1000 + index)
                totals = [t + p for t, p in zip(totals, parts[:3], strict=True)]
                print(f"{'':<22}{case.name[:25]:<26}{case_bytes(problem, case) / 2**20:>7.1f}{parts[0]:>8.2f}"
                      f"{parts[1]:>9.2f}{parts[2]:>8.2f}{sum(parts[:3]):>8.2f}  {'yes' if parts[3] else 'NO'}",
                      flush=True)
            print(f"{'':<22}{'all cases':<26}{'':>7}{totals[0]:>8.2f}{totals[1]:>9.2f}{totals[2]:>8.2f}"
                  f"{sum(totals):>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What each problem's reference (problems/<slug>/reference.py) costs the agent's parent, case by case.

    .venv/bin/python bench/references.py [--problem SLUG ...] [--kind test|bench|ranked ...]
                                         [--device gpu|host] [--largest-only] [--threads 1,0]
                                         [--limit-s 600]

For every problem and every case (tests, benchmarks, ranked; gpu and host), inputs are generated as
the agent does (Problem.generate with a seeded generator, so the same shapes and distributions), then
the parent's reference is timed as the judge calls it (Problem.expected: the copies it hands the
reference, the reference, the cast to the outputs' types). Each case runs in a process of its own, so
its peak resident memory is its own (wait4) and a runaway case is stopped at --limit-s.

--threads lists BLAS thread counts to measure with (0: the library's default, every core). Each
count gets the reference's wall time and its CPU time (every thread's). On a shared, loaded machine
the wall time of a case is mostly waiting for a CPU; the CPU time at one thread is what the reference
costs one idle core, an upper bound for a VM with more cores of the same speed. The BLAS part of it
divides by the cores there; the rest (single-threaded NumPy: casts, copies, elementwise work, Python
loops) does not.

--largest-only keeps, per problem and device class, the case with the most buffer bytes and the one
with the most flops (one row when they are the same case).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KINDS = ("test", "bench", "ranked")
SEED_SECRET = b"bench/references"
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problem", action="append", help="a problem's slug (repeatable; default: all)")
    parser.add_argument("--kind", action="append", choices=KINDS, help="case kinds (default: all)")
    parser.add_argument("--device", action="append", choices=("gpu", "host"), help="device classes (default: both)")
    parser.add_argument("--largest-only", action="store_true")
    parser.add_argument("--threads", default="1", help="comma-separated BLAS thread counts (0: every core)")
    parser.add_argument("--limit-s", type=float, default=600.0, help="stop one case's measurement after this")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--one", nargs=4, metavar=("SLUG", "KIND", "DEVICE", "INDEX"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one[0], args.one[1], args.one[2], int(args.one[3]))))
        return 0
    threads = [int(t) for t in args.threads.split(",")]
    print(f"# {os.cpu_count()} CPUs here, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"BLAS threads {threads} (0: default)", flush=True)
    rows = []
    header = f"{'problem':22} {'kind':6} {'dev':4} {'case':36} {'params':40} {'in MB':>8} {'gen s':>7} {'gen cpu':>7}"
    for t in threads:
        header += f" {'wall@' + (str(t) if t else 'all'):>9} {'cpu@' + (str(t) if t else 'all'):>9}"
    header += f" {'peak MB':>8}"
    print(header, flush=True)
    for slug, kind, device, index, case in selected_cases(args):
        row: dict[str, Any] = {"problem": slug, "kind": kind, "device": device, "case": case.name,
                               "params": dict(case.params), "seconds": {}}
        for count in threads:
            result = run_one(slug, kind, device, index, count, args.limit_s)
            row.update({k: v for k, v in result.items() if k not in ("reference_s", "reference_cpu_s")})
            row["seconds"][count] = (result.get("reference_s"), result.get("reference_cpu_s"))
        rows.append(row)
        print(format_row(row, threads), flush=True)
    print(f"# load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


def selected_cases(args: argparse.Namespace) -> list[tuple[str, str, str, int, Any]]:
    from agent.problems.bundle import load_problem_dir

    slugs = args.problem or sorted(d.name for d in (ROOT / "problems").iterdir() if (d / "problem.yaml").is_file())
    chosen = []
    for slug in slugs:
        problem = load_problem_dir(ROOT / "problems" / slug)
        for device in args.device or ("gpu", "host"):
            cases = [(kind, index, case) for kind in args.kind or KINDS
                     for index, case in enumerate(problem.cases(kind, device))]
            if args.largest_only and cases:
                by_bytes = max(cases, key=lambda c: (buffer_bytes(problem, c[2]), problem.flop_count(c[2])))
                by_flops = max(cases, key=lambda c: (problem.flop_count(c[2]), buffer_bytes(problem, c[2])))
                cases = [by_bytes] + ([by_flops] if by_flops is not by_bytes else [])
            chosen += [(slug, kind, device, index, case) for kind, index, case in cases]
    return chosen


def buffer_bytes(problem: Any, case: Any) -> int:
    import numpy as np

    return sum(int(np.prod(p.shape_for(case.params))) * p.dtype.itemsize for p in problem.signature if p.pointer)


def run_one(slug: str, kind: str, device: str, index: int, threads: int, limit_s: float) -> dict[str, Any]:
    """One case measured in a process of its own (its own peak memory, its own BLAS thread count)."""
    env = dict(os.environ)
    for name in THREAD_VARIABLES:
        env.pop(name, None)
        if threads:
            env[name] = str(threads)
    proc = subprocess.Popen([sys.executable, __file__, "--one", slug, kind, device, str(index)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=limit_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"error": f"over {limit_s:g} s"}
    if proc.returncode != 0:
        return {"error": (err.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out)


def measure(slug: str, kind: str, device: str, index: int) -> dict[str, Any]:
    """In the case's own process: generate as the agent does, then time Problem.expected."""
    import resource

    import numpy as np

    from agent.judging.phase import case_seed
    from agent.problems.bundle import load_problem_dir

    problem = load_problem_dir(ROOT / "problems" / slug)
    case = problem.cases(kind, device)[index]  # numbered among its device class's, as the agent does
    began, cpu = time.perf_counter(), time.process_time()
    inputs = problem.generate(case, np.random.default_rng(case_seed(SEED_SECRET, kind, index, "A")))
    generated, generated_cpu = time.perf_counter() - began, time.process_time() - cpu
    began, cpu = time.perf_counter(), time.process_time()
    problem.expected(case, inputs)
    reference, reference_cpu = time.perf_counter() - began, time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"input_mb": sum(a.nbytes for a in inputs.values()) / 1e6, "generate_s": generated,
            "generate_cpu_s": generated_cpu,
            "reference_s": reference, "reference_cpu_s": reference_cpu, "peak_mb": peak_mb}


def format_row(row: dict[str, Any], threads: list[int]) -> str:
    params = ",".join(f"{k}={v}" for k, v in row["params"].items())
    line = f"{row['problem'][:22]:22} {row['kind']:6} {row['device']:4} {row['case'][:36]:36} {params[:40]:40}"
    if "error" in row and "input_mb" not in row:
        return f"{line} ERROR: {row['error']}"
    line += f" {row['input_mb']:8.1f} {row['generate_s']:7.2f} {_num(row.get('generate_cpu_s')):>7}"
    for t in threads:
        wall, cpu = row["seconds"].get(t, (None, None))
        line += f" {_num(wall):>9} {_num(cpu):>9}"
    return line + f" {row['peak_mb']:8.0f}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    sys.exit(main())

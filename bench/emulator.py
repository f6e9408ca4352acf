"""Emulator figures: GPU threads per second, and the check time of every catalogue solution.

    .venv/bin/python bench/emulator.py [--threads 2] [--size 4194304] [--language hip] [--agent]

1. Throughput of the emulated device for a barrier-free kernel (one element per thread), a
   barrier-heavy one (32 __syncthreads per thread) and a shuffle-heavy one (a 64-lane wavefront
   reduction, 6 shuffles per thread), timed inside one process (bench/emulator_kernels.cpp).
2. For each problem, the check a user would get, through the agent: compile (rewrite + g++ in
   the sandbox) and run every test case within the emulator's budget in the judge's harness,
   inputs and reference included; the kernels' share is the time of the calls themselves, and
   the column `dominates` says where most of the time went. Target: each check within 5 s at a
   load of 2 or less on 2 cores (the load is printed on each row: a busy machine's figures say
   little). `--threads` applies to the first table only (the agent's
   child uses every CPU). With --agent, each check through the agent's command line instead
   (`python -m agent run --mode check`: a fresh process, as a user's emulated check runs on the
   local pool).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.config import build_config  # noqa: E402
from agent.emulator.build import build_runtime  # noqa: E402
from agent.judging.judge import JobSpec, judge  # noqa: E402
from agent.problems.bundle import SOURCE_SUFFIX, load_catalogue  # noqa: E402
from tests.agent.emulator.driver import compile_program  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 5.0  # issue 38: every problem's emulated check, at a load of 2 or less on 2 cores


def throughput(runtime: Path, work: Path, size: int, env: dict[str, str]) -> None:
    program = compile_program((ROOT / "bench" / "emulator_kernels.cpp").read_text(), "hip", runtime, work,
                              "emulator_kernels.cpp")
    out = subprocess.run([str(program), str(size), "3"], capture_output=True, text=True, env=env, timeout=600,
                         check=True).stdout
    print(f"{'kernel':<16}{'GPU threads':>13}{'wall s':>9}{'threads/s':>13}{'CPU s':>8}{'CPU ns/thread':>15}")
    for line in out.splitlines():
        name, threads, wall, cpu = line.split()
        count = int(threads)
        print(f"{name:<16}{count:>13,}{float(wall):>9.3f}{count / float(wall):>13,.0f}{float(cpu):>8.3f}"
              f"{1e9 * float(cpu) / count:>15.1f}")


def _solution(problem_slug: str, language: str) -> Path:
    return ROOT / "problems" / problem_slug / "solutions" / f"{language}{SOURCE_SUFFIX[language]}"


def _within(seconds: float, passed: bool) -> str:
    """Whether a passing check met the target; a check that did not pass proves nothing."""
    if not passed:
        return "-"
    return "yes" if seconds <= TARGET_SECONDS else "NO"


def _dominant(parts: dict[str, float]) -> str:
    name, seconds = max(parts.items(), key=lambda item: item[1])
    return f"{name} {100 * seconds / max(sum(parts.values()), 1e-9):.0f}%"


def check_times(work: Path, languages: list[str], slugs: list[str]) -> None:
    """Each catalogue solution checked as a user's job is: through the agent (compile in the
    sandbox, the judge's harness, verification in the parent), on the emulated device, with a
    cold compile cache (the sandboxes' CPU time is not ours to read: bench/emulator_cpu.py gives the
   CPU time of the compile and of each case's parts, which a loaded machine does not change). What
   dominates: the compile (rewrite + g++), the kernels (the solution's
    calls), the harness (inputs, poison, reference and comparison: the check phase less the
    kernels) or the rest (sandbox starts, loading)."""
    config = build_config(workdir=work / "agent", device="host")
    print(f"\n{'problem':<22}{'api':<5}{'cases':>6}{'compile s':>10}{'run s':>8}{'kernels s':>10}{'total s':>9}"
          f"{'<= 5 s':>8}  {'dominates':<15}{'load':>5}  result")
    for problem in load_catalogue(ROOT / "problems"):
        if slugs and problem.slug not in slugs:
            continue
        for language in languages:
            path = _solution(problem.slug, language)
            spec = JobSpec.from_request({"id": f"bench-{time.monotonic_ns()}", "problem": problem.to_bundle(),
                                         "language": language, "source": path.read_text(), "mode": "check"}, config)
            events: list[tuple[str, dict]] = []
            started = time.monotonic()
            judge(spec, config, lambda kind, payload, into=events: into.append((kind, payload)), threading.Event())
            total = time.monotonic() - started
            result = events[-1][1]
            compiled = next(p for kind, p in events if kind == "COMPILE_RESULT")
            tests = [p for kind, p in events if kind == "TEST_RESULT"]
            kernels = sum(t["seconds"] for t in tests)
            run = result["summary"].get("test_seconds", 0.0)
            parts = {"compile": compiled["seconds"], "kernels": kernels, "harness": max(run - kernels, 0.0),
                     "rest": max(total - compiled["seconds"] - run, 0.0)}
            passed = result["status"] == "CHECKED"
            print(f"{problem.slug:<22}{language:<5}{len(tests):>6}{compiled['seconds']:>10.2f}{run:>8.2f}"
                  f"{kernels:>10.2f}{total:>9.2f}{_within(total, passed):>8}  {_dominant(parts):<15}"
                  f"{os.getloadavg()[0]:>5.1f}  {result['status']}: {result['reason'][:60]}", flush=True)


def agent_check_times(work: Path, language: str, env: dict[str, str]) -> None:
    """Each solution's check through the agent's own command line, its compile cache cold."""
    print(f"\n{'problem':<18}{'agent check s':>14}{'<= 5 s':>9}  result (python -m agent run --mode check)")
    for problem in load_catalogue(ROOT / "problems"):
        command = [sys.executable, "-m", "agent", "run", "--problem", problem.slug, "--mode", "check", "--json",
                   "--workdir", str(work / "agent" / problem.slug), str(_solution(problem.slug, language))]
        started = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
        seconds = time.monotonic() - started
        events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        result = next((e["payload"] for e in events if e.get("type") == "RESULT"), None)
        said = (f"{result['status']}: {result['reason']}" if result
                else f"no result (exit {done.returncode}): {done.stderr.strip()[-200:]}")
        passed = bool(result) and result["status"] == "CHECKED"
        print(f"{problem.slug:<18}{seconds:>14.2f}{_within(seconds, passed):>9}  {said[:110]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=0, help="HJEMU_THREADS (default: every CPU)")
    parser.add_argument("--size", type=int, default=1 << 22, help="GPU threads of the barrier-free kernel")
    parser.add_argument("--language", choices=("hip", "cuda"), action="append",
                        help="hip, cuda or both (the default); --agent takes the first")
    parser.add_argument("--problem", action="append", default=[], help="only these problems (default: all)")
    parser.add_argument("--no-throughput", action="store_true", help="skip the first table")
    parser.add_argument("--agent", action="store_true",
                        help="time each check through `python -m agent run` (a fresh process) instead of in this one")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.threads:
        env["HJEMU_THREADS"] = str(args.threads)
    with tempfile.TemporaryDirectory(prefix="hjemu-bench-") as tmp:
        work = Path(tmp)
        started = time.monotonic()
        runtime = build_runtime(work / "cache")
        if runtime is None:
            print("g++ is missing or the runtime does not build", file=sys.stderr)
            return 1
        print(f"host threads: {env.get('HJEMU_THREADS', os.cpu_count())}, machine load: {os.getloadavg()[0]:.1f}, "
              f"runtime build (once per toolchain): {time.monotonic() - started:.1f} s\n")
        if not args.no_throughput:
            throughput(runtime, work, args.size, env)
        languages = args.language or ["hip", "cuda"]
        if args.agent:
            agent_check_times(work, languages[0], env)
        else:
            check_times(work, languages, args.problem)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Agent figures: time per job without compiling, compile-cache hits, and score repeatability.

    .venv/bin/python bench/agent.py [--problem vector-add] [--repeats 5] [--device host]

Runs the real judge (compile + bubblewrap sandbox) on the problem's reference solution and prints
tables. On a machine with a GPU, `--device cuda --language cuda` (or hip) judges the GPU solution
through that device; `--all` does it for every problem in the catalogue.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.config import build_config  # noqa: E402
from agent.judge import JobSpec, judge  # noqa: E402
from agent.problems import SOURCE_SUFFIX, Problem, load_catalogue, load_problem_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def run_once(problem: Problem, language: str, config: Any, mode: str = "benchmark") -> tuple[dict, list, float]:
    source = (ROOT / "problems" / problem.slug / "solutions" / f"{language}{SOURCE_SUFFIX[language]}").read_text()
    spec = JobSpec.from_request({"id": f"bench-{time.monotonic_ns()}", "problem": problem.to_bundle(),
                                 "language": language, "source": source, "mode": mode})
    events: list[tuple[float, str, dict]] = []
    started = time.monotonic()
    judge(spec, config, lambda t, p: events.append((time.monotonic() - started, t, p)), threading.Event())
    return events[-1][2], events, time.monotonic() - started


def compile_seconds(events: list) -> float:
    start = next(t for t, kind, p in events if kind == "STATUS" and p["status"] == "COMPILING")
    end = next(t for t, kind, _ in events if kind == "COMPILE_RESULT")
    return end - start


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--problem", default="vector-add")
    parser.add_argument("--language", default="cpp")
    parser.add_argument("--device", default="host")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--all", action="store_true", help="judge every problem once and print a report")
    args = parser.parse_args()
    config = build_config(workdir=Path(tempfile.mkdtemp(prefix="hj-bench-")), device=args.device)
    print(f"device={config.device} arch={config.arch} sandbox={config.sandbox.mode}")

    if args.all:
        rows = []
        for problem in load_catalogue(ROOT / "problems"):
            result, _, seconds = run_once(problem, args.language, config)
            rows.append([problem.slug, result["status"], f"{result['score_ms'] or 0:.4f}", f"{seconds:.1f}"])
            for case in result["summary"].get("benchmarks", []):
                rows.append([f"  {case['case']}", f"{case['runs']} runs", f"{case['mean_ms']:.4f}",
                             f"{case['gflops'] or 0:.1f} GFLOPS / {case['gbps'] or 0:.1f} GB/s"])
        table(f"Every problem, {args.language} on {config.device}", ["problem", "status", "score_ms", "s"], rows)
        return 0

    problem = load_problem_dir(ROOT / "problems" / args.problem)
    rows, scores, agent_times, cache_hits = [], [], [], []
    for i in range(args.repeats + 1):
        result, events, seconds = run_once(problem, args.language, config)
        if result["status"] != "ACCEPTED":
            print(f"run {i}: {result['status']}: {result['reason']}")
            return 1
        compiled = compile_seconds(events)
        cached = next(p["cached"] for _, kind, p in events if kind == "COMPILE_RESULT")
        if i == 0:
            rows.append(["cold (first compile)", f"{compiled * 1e3:.0f}", f"{(seconds - compiled):.2f}",
                         f"{result['score_ms']:.4f}"])
            continue
        assert cached, "the second identical compile must hit the cache"
        cache_hits.append(compiled)
        agent_times.append(seconds - compiled)
        scores.append(result["score_ms"])
        rows.append([f"run {i} (cache hit)", f"{compiled * 1e3:.0f}", f"{seconds - compiled:.2f}",
                     f"{result['score_ms']:.4f}"])
    table(f"{problem.slug} / {args.language} on {config.device}: per job",
          ["run", "compile ms", "agent s (no compile)", "score ms"], rows)
    spread = (max(scores) - min(scores)) / statistics.fmean(scores) * 100
    table("Summary", ["figure", "value"], [
        ["agent time per job excluding compile, median", f"{statistics.median(agent_times):.2f} s"],
        ["compile-cache hit, median", f"{statistics.median(cache_hits) * 1e3:.1f} ms"],
        [f"score over {len(scores)} runs: mean", f"{statistics.fmean(scores):.4f} ms"],
        ["score spread (max-min)/mean", f"{spread:.2f} % (target <= 3 %)"],
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())

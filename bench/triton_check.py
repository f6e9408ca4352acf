"""Triton check figures: for every problem with a Triton solution, the free check a user gets on a
pool without a GPU, through the agent's judge (the same path as `python -m agent run --mode check`).

    .venv/bin/python bench/triton_check.py [--problem gemm-bf16 ...] [--repeat 1]

Per problem: the compile for gfx942 and sm_90 in the sandbox (its resource report), the check in
Triton's interpreter (every test case within its size budget, inputs and references included),
the cases run and skipped, and the machine's load average as the run began. Each job gets a new
cache scope, so the compile is never a cached one. Target (issue 37): compile + check <= 10 s per
problem at a load of at most 2 on two cores; the load column says whether a row can speak to it.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.config import build_config  # noqa: E402
from agent.judging.judge import JobSpec, judge  # noqa: E402
from agent.problems.bundle import load_catalogue  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 10.0


def check_once(problem: object, source: str, config: object) -> dict:
    body = {"id": f"bench-{uuid.uuid4().hex}", "problem": problem.to_bundle(), "language": "triton",  # type: ignore[attr-defined]
            "source": source, "mode": "check", "cache_scope": f"bench-{uuid.uuid4().hex[:12]}",
            "limits": {"compile_s": 180, "emulated_check_s": 300}}
    events: list[tuple[str, dict]] = []
    started = time.monotonic()
    judge(JobSpec.from_request(body, config), config, lambda kind, data: events.append((kind, data)),  # type: ignore[arg-type]
          threading.Event())
    result = next(data for kind, data in reversed(events) if kind == "RESULT")
    summary = result.get("summary") or {}
    return {"status": result["status"], "wall": time.monotonic() - started,
            "compile": (summary.get("compile") or {}).get("seconds", 0.0), "check": summary.get("test_seconds", 0.0),
            "cases": len(summary.get("tests") or []), "reason": result["reason"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problem", action="append", help="a slug (default: every problem with solutions/triton.py)")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    config = build_config(workdir=Path(os.environ.get("HIPJUDGE_BENCH_WORKDIR", "/tmp/hipjudge-bench-triton")))
    problems = [p for p in load_catalogue(ROOT / "problems")
                if (ROOT / "problems" / p.slug / "solutions" / "triton.py").is_file()
                and (not args.problem or p.slug in args.problem)]
    print(f"{'problem':<22}{'status':<10}{'cases':>6}{'compile s':>11}{'check s':>9}{'total s':>9}{'load':>6}"
          f"  within {TARGET_SECONDS:g} s")
    for problem in problems:
        source = (ROOT / "problems" / problem.slug / "solutions" / "triton.py").read_text()
        for _ in range(args.repeat):
            load = os.getloadavg()[0]
            row = check_once(problem, source, config)
            within = "-" if row["status"] != "CHECKED" else ("yes" if row["wall"] <= TARGET_SECONDS else "no")
            print(f"{problem.slug:<22}{row['status']:<10}{row['cases']:>6}{row['compile']:>11.2f}{row['check']:>9.2f}"
                  f"{row['wall']:>9.2f}{load:>6.1f}  {within}", flush=True)
            if row["status"] != "CHECKED":
                print(f"    {row['reason'][:300]}")


if __name__ == "__main__":
    main()

"""Before/after: every problem's cpp solution judged by the agent of another checkout (before) and
of this one (after), interleaved job by job on the same machine, each in its own process with its
own .venv, its own compile cache and the judge's default limits.

    git worktree add --detach /tmp/before 72cb36e
    (cd /tmp/before && python3 -m venv .venv && .venv/bin/pip install "numpy>=1.26,<3" "pyyaml>=6,<7")
    .venv/bin/python bench/before_after.py --before /tmp/before [--rounds 3] [--problem vector-add]

Prints each job as it ends, then per problem the median score of each side, the ratio, and each
side's spread (max-min over mean); the load average is printed with every job (the machine is
shared: a score means little without it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Run inside each checkout: the judge API (JobSpec, judge, build_config) is the same on both sides.
DRIVER = """
import json, sys, threading, time
from pathlib import Path
sys.path.insert(0, ".")
from agent.config import build_config
from agent.judging.judge import JobSpec, judge
from agent.problems.bundle import load_problem_dir
slug, workdir = sys.argv[1], sys.argv[2]
config = build_config(workdir=Path(workdir), device="host")
problem = load_problem_dir(Path("problems") / slug)
source = (Path("problems") / slug / "solutions" / "cpp.cpp").read_text()
spec = JobSpec.from_request({"id": f"ba-{time.monotonic_ns()}", "problem": problem.to_bundle(), "language": "cpp",
                             "source": source, "mode": "benchmark"})
events = []
judge(spec, config, lambda kind, payload: events.append(payload), threading.Event())
result = events[-1]
print(json.dumps({"status": result["status"], "reason": result["reason"], "score_ms": result["score_ms"],
                  "cases": {b["case"]: b["mean_ms"] for b in result["summary"].get("benchmarks", [])}}))
"""


def judge_once(tree: Path, slug: str, workdir: Path) -> dict:
    python = tree / ".venv" / "bin" / "python"
    done = subprocess.run([str(python), "-c", DRIVER, slug, str(workdir)], cwd=tree, capture_output=True,
                          text=True, timeout=900)
    if done.returncode != 0:
        return {"status": "CRASHED", "reason": done.stderr[-300:], "score_ms": None, "cases": {}}
    return json.loads(done.stdout.strip().splitlines()[-1])


def spread(values: list[float]) -> str:
    return f"{(max(values) - min(values)) / statistics.fmean(values) * 100:.1f} %" if len(values) > 1 else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="a checkout with its own .venv")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--problem", action="append", help="default: every problem of this checkout")
    args = parser.parse_args()
    slugs = args.problem or sorted(d.name for d in (ROOT / "problems").iterdir() if (d / "problem.yaml").is_file())
    trees = {"before": args.before.resolve(), "after": ROOT}
    scores: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="hj-before-after-") as tmp:
        for round_no in range(args.rounds):
            for slug in slugs:
                order = ["before", "after"] if round_no % 2 == 0 else ["after", "before"]
                for side in order:
                    load = os.getloadavg()[0]
                    result = judge_once(trees[side], slug, Path(tmp) / side)
                    if result["score_ms"] is not None:
                        scores.setdefault((slug, side), []).append(result["score_ms"])
                    score = f"{result['score_ms']:.4f} ms" if result["score_ms"] else result["reason"][:100]
                    print(f"round {round_no + 1} {slug:<17} {side:<6} load {load:4.1f}  {result['status']:<14} {score}",
                          flush=True)
    print(f"\n{'problem':<17}{'before ms':>11}{'after ms':>11}{'after/before':>14}{'spread before':>15}"
          f"{'spread after':>14}")
    for slug in slugs:
        before, after = scores.get((slug, "before"), []), scores.get((slug, "after"), [])
        if not before or not after:
            print(f"{slug:<17}  (a side has no score)")
            continue
        b, a = statistics.median(before), statistics.median(after)
        print(f"{slug:<17}{b:>11.4f}{a:>11.4f}{a / b:>14.2f}{spread(before):>15}{spread(after):>14}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

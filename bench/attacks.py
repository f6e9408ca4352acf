"""What the timing attacks gain: each attack of the corpus against the same loop honestly timed,
judged by the real judge (g++, bubblewrap, the host device) in the same run, interleaved round by
round so that both see the same moments of the machine.

    .venv/bin/python bench/attacks.py [--rounds 5]

Prints per attack and mode the median score of each side and the gain (honest score / attack's
score: above 1 the attack pays). The clock rule holds when every ranked gain is within the
machine's noise (issue: at most 1.2x). The public benchmark of a matmul that patches its last
result under the 3x fresh-input check is shown too: it gains there, which is why only the ranked
pass, where every timed run is on new inputs, ranks.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.config import build_config  # noqa: E402
from agent.judging.judge import JobSpec, judge  # noqa: E402
from agent.problems.bundle import Problem, load_problem_dir, parse_definition  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "agent" / "corpus"


def matmul() -> Problem:
    """matmul-fp32 with one public and one ranked host case of a size a bench can afford."""
    base = load_problem_dir(ROOT / "problems" / "matmul-fp32")
    public, ranked = {"M": 384, "N": 384, "K": 384}, {"M": 400, "N": 384, "K": 392}
    definition = {**base.definition, "tests": base.definition["tests"][:3],
                  "benchmarks": [{"name": "384^3", "devices": ["host"], "params": public}],
                  "ranked": [{"name": "400x384x392", "devices": ["host"], "params": ranked},
                             *(c for c in base.definition["ranked"] if "host" not in c["devices"])]}
    return parse_definition(definition, base.reference_source)


# (name, problem, honest source, attack source, modes)
ATTACKS = [
    ("relay_precompute (finding 1)", "vector-add", "problems/vector-add/solutions/cpp.cpp",
     "tests/agent/corpus/relay_precompute.cpp", ("benchmark", "leaderboard")),
    ("prefetch_after_evict", "vector-add", "problems/vector-add/solutions/cpp.cpp",
     "tests/agent/corpus/prefetch_after_evict.cpp", ("benchmark", "leaderboard")),
    ("patch_under_ratio (finding 2)", "matmul", "problems/matmul-fp32/solutions/cpp.cpp",
     "tests/agent/corpus_matmul/patch_under_ratio.cpp", ("benchmark", "leaderboard")),
]


def judge_once(problem: Problem, source: str, mode: str, config: Any) -> tuple[str, float | None]:
    request: dict[str, Any] = {"id": f"attack-{time.monotonic_ns()}", "problem": problem.to_bundle(),
                               "language": "cpp", "source": source, "mode": mode, "cache_scope": "bench",
                               "limits": {"case_budget_s": 1.0}}
    if mode == "leaderboard":
        request["ranked_seed"] = secrets.randbelow(2**63)
    events: list[dict[str, Any]] = []
    judge(JobSpec.from_request(request), config, lambda kind, payload: events.append(payload), threading.Event())
    result = events[-1]
    if result["status"] != "ACCEPTED":
        return f"{result['status']}: {result['reason'][:80]}", None
    score = result["summary"]["ranked"]["score_ms"] if mode == "leaderboard" else result["score_ms"]
    return "ACCEPTED", score


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    config = build_config(workdir=Path(tempfile.mkdtemp(prefix="hj-attacks-")), device="host")
    problems = {"vector-add": load_problem_dir(ROOT / "problems" / "vector-add"), "matmul": matmul()}
    print(f"sandbox={config.sandbox.mode}  rounds={args.rounds}  load={os.getloadavg()[0]:.1f}")
    rows = []
    for name, slug, honest_path, attack_path, modes in ATTACKS:
        honest, attack = (ROOT / honest_path).read_text(), (ROOT / attack_path).read_text()
        for mode in modes:
            scores: dict[str, list[float]] = {"honest": [], "attack": []}
            verdicts = set()
            for round_no in range(args.rounds):
                order = [("honest", honest), ("attack", attack)]
                for side, source in order if round_no % 2 == 0 else order[::-1]:
                    verdict, score = judge_once(problems[slug], source, mode, config)
                    if side == "attack":
                        verdicts.add(verdict)
                    if score is not None:
                        scores[side].append(score)
            honest_ms = statistics.median(scores["honest"]) if scores["honest"] else None
            attack_ms = statistics.median(scores["attack"]) if scores["attack"] else None
            gain = f"{honest_ms / attack_ms:.2f}x" if honest_ms and attack_ms else "-"
            score = "ranked" if mode == "leaderboard" else "public"
            shown = [f"{ms:.4f}" if ms else "-" for ms in (honest_ms, attack_ms)]
            rows.append([name, score, *shown, gain, ", ".join(sorted(verdicts))])
            print(" | ".join(rows[-1]), flush=True)
    header = ["attack", "score", "honest ms", "attack ms", "gain", "attack's verdicts"]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print()
    for row in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

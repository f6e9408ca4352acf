"""Warm turnaround of cpp vector-add on the local pool: platform overhead against agent time.

    .venv/bin/python bench/turnaround.py [--runs 30] [--mode check|benchmark] [--broker orm|redis]
                                         [--redis-url redis://127.0.0.1:6379/9] [--pg postgres://postgres@127.0.0.1:5432]

Starts a throwaway database, a real qcluster worker and (through the local pool) a real agent;
submits through submission_create (what the API calls), one at a time, after one cold start that
is not counted. From the stored timestamps of each submission:

  queue pickup + dispatch   created → dispatched (the dispatch task ran and claimed a warm VM)
  hand-off to the agent     dispatched → the agent's first event (run task picked up, job POSTed)
  event lag                 the agent's RESULT → the submission finished in our database
  platform overhead         the three above: everything that is not the agent judging
  agent time                the agent's first event → its RESULT (compile, check, benchmark)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from platform_env import Platform, header, row  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--mode", choices=("check", "benchmark", "compile"), default="check")
    parser.add_argument("--broker", choices=("orm", "redis"), default="orm")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--pg", default=None, help="PostgreSQL server URL (default: SQLite)")
    args = parser.parse_args()

    platform = Platform(pg_server=args.pg, redis_url=args.redis_url if args.broker == "redis" else None)
    try:
        return run(platform, args)
    finally:
        platform.close()


def run(platform: Platform, args: argparse.Namespace) -> int:
    from django.contrib.auth import get_user_model

    from submissions.models import TERMINAL_STATUSES, Submission
    from submissions.services import submission_create

    user = get_user_model().objects.create_user("bench", password="bench-password")
    source = (Path(__file__).resolve().parents[1] / "problems/vector-add/solutions/cpp.cpp").read_text()
    platform.start_worker()

    def judge_one() -> Submission:
        submission = submission_create(user=user, problem="vector-add", language="cpp", source=source, mode=args.mode)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            submission.refresh_from_db()
            if submission.status in TERMINAL_STATUSES:
                return submission
            time.sleep(0.01)
        raise RuntimeError(f"{submission.pk} did not finish: {submission.status}")

    cold = judge_one()
    if cold.status not in ("ACCEPTED", "CHECKED", "COMPILED"):
        print(f"the cold-start submission ended {cold.status}: {cold.status_reason}", file=sys.stderr)
        return 1
    split: dict[str, list[float]] = {k: [] for k in ("pickup", "handoff", "lag", "overhead", "agent", "total")}
    warm = 0
    for _ in range(args.runs):
        s = judge_one()
        warm += s.vm_start == "WARM_REUSE"
        agent_events = list(s.events.filter(agent_seq__isnull=False).order_by("agent_seq").values_list("at", flat=True))
        first, result = agent_events[0], agent_events[-1]
        ms = lambda a, b: (b - a).total_seconds() * 1000  # noqa: E731
        split["pickup"].append(ms(s.created_at, s.dispatched_at))
        split["handoff"].append(ms(s.dispatched_at, first))
        split["lag"].append(ms(result, s.finished_at))
        split["agent"].append(ms(first, result))
        split["total"].append(ms(s.created_at, s.finished_at))
        split["overhead"].append(split["total"][-1] - split["agent"][-1])

    from django.conf import settings

    database = "PostgreSQL" if settings.IS_POSTGRES else "SQLite"
    print(f"\nWarm turnaround: cpp vector-add, mode {args.mode}, local pool, {database}, "
          f"broker {args.broker}, {args.runs} runs ({warm} warm reuses)")
    print(header())
    print(row("queue pickup + dispatch", split["pickup"]))
    print(row("hand-off to the agent", split["handoff"]))
    print(row("event lag (RESULT -> stored)", split["lag"]))
    print(row("platform overhead (sum)", split["overhead"]))
    print(row("agent time", split["agent"]))
    print(row("end to end", split["total"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

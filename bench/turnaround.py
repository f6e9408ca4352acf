"""Warm turnaround of cpp vector-add on the local pool, stage by stage.

    .venv/bin/python bench/turnaround.py [--runs 30] [--via cli|service] [--mode check|benchmark]
                                         [--broker orm|redis] [--redis-url redis://127.0.0.1:6379/9]
                                         [--pg postgres://postgres@127.0.0.1:5432]

Starts a throwaway database, a real qcluster worker and (through the local pool) a real agent, and
judges one submission at a time after one cold start that is not counted. `--via cli` (the
default) runs `hipjudge submit --wait` against a real uvicorn, as a user does, and times it from
the moment the process is started to its exit; `--via service` calls submission_create (what the
API calls) in this process and waits on the database. From the stored timestamps and events of each:

  CLI start + POST          the CLI process started → the submission row exists (--via cli)
  queue to VM               created → dispatched (the dispatch task ran and claimed a warm VM)
  job POST + agent start    dispatched → the agent's first event (run task picked up, job POSTed)
  sandbox start → 1st test  the agent's first event → its first TEST_RESULT (compile, sandbox)
  tests                     first → last TEST_RESULT
  result                    last TEST_RESULT → the submission finished in our database
  CLI: events + exit        finished in the database → the CLI process exited (--via cli)
  end to end                the sum
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from platform_env import ROOT, Platform, header, row  # noqa: E402

SOURCE = ROOT / "problems/vector-add/solutions/cpp.cpp"
STAGES = ("CLI start + POST", "queue to VM", "job POST + agent start", "sandbox start -> 1st test", "tests",
          "result", "CLI: events + exit", "end to end")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--via", choices=("cli", "service"), default="cli")
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


def _ms(a: datetime, b: datetime) -> float:
    return (b - a).total_seconds() * 1000


def stages(submission: Any, started: datetime | None, exited: datetime | None) -> dict[str, float]:
    """The stages of one finished submission, in ms (the CLI's two only with its start and exit)."""
    events = list(submission.events.filter(agent_seq__isnull=False).order_by("agent_seq").values_list("type", "at"))
    tests = [at for kind, at in events if kind == "TEST_RESULT"] or [events[-1][1]]
    split = {"queue to VM": _ms(submission.created_at, submission.dispatched_at),
             "job POST + agent start": _ms(submission.dispatched_at, events[0][1]),
             "sandbox start -> 1st test": _ms(events[0][1], tests[0]),
             "tests": _ms(tests[0], tests[-1]),
             "result": _ms(tests[-1], submission.finished_at)}
    if started is not None and exited is not None:
        split["CLI start + POST"] = _ms(started, submission.created_at)
        split["CLI: events + exit"] = _ms(submission.finished_at, exited)
        split["end to end"] = _ms(started, exited)
    else:
        split["end to end"] = _ms(submission.created_at, submission.finished_at)
    return split


def run(platform: Platform, args: argparse.Namespace) -> int:
    from django.contrib.auth import get_user_model

    from accounts.tokens import token_create
    from submissions.models import SUCCESS_STATUSES, TERMINAL_STATUSES, Submission
    from submissions.services import submission_create

    user = get_user_model().objects.create_user("bench", password="bench-password")
    platform.start_worker()
    env: dict[str, str] = {}
    if args.via == "cli":
        env = {**platform.env, "HIPJUDGE_SERVER": platform.start_web(), "HIPJUDGE_TOKEN": token_create(user=user).key,
               "HIPJUDGE_CONFIG": str(platform.tmp / "cli.json")}
    script = Path(sys.executable).parent / "hipjudge"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "cli.main"]

    def judge_one() -> tuple[Submission, datetime | None, datetime | None]:
        if args.via == "cli":
            started = datetime.now(UTC)
            done = subprocess.run([*command, "submit", str(SOURCE), "-p", "vector-add", "--mode", args.mode,
                                   "--wait"], env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
            exited = datetime.now(UTC)
            latest = Submission.objects.filter(user=user).order_by("-created_at").first()
            if latest is None or latest.status not in TERMINAL_STATUSES:
                raise RuntimeError(f"the CLI exited {done.returncode}: {done.stdout}{done.stderr}")
            return latest, started, exited
        submission = submission_create(user=user, problem="vector-add", language="cpp", source=SOURCE.read_text(),
                                       mode=args.mode)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            submission.refresh_from_db()
            if submission.status in TERMINAL_STATUSES:
                return submission, None, None
            time.sleep(0.01)
        raise RuntimeError(f"{submission.pk} did not finish: {submission.status}")

    cold, _, _ = judge_one()
    if cold.status not in SUCCESS_STATUSES:
        print(f"the cold-start submission ended {cold.status}: {cold.status_reason}", file=sys.stderr)
        return 1
    split: dict[str, list[float]] = {}
    warm = 0
    load = os.getloadavg()[0]
    for _ in range(args.runs):
        submission, started, exited = judge_one()
        warm += submission.vm_start == "WARM_REUSE"
        for name, value in stages(submission, started, exited).items():
            split.setdefault(name, []).append(value)

    from django.conf import settings

    database = "PostgreSQL" if settings.IS_POSTGRES else "SQLite"
    print(f"\nWarm turnaround via {args.via}: cpp vector-add, mode {args.mode}, local pool, {database}, "
          f"broker {args.broker}, {args.runs} runs ({warm} warm reuses); load average {load:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end, {os.cpu_count()} CPUs")
    print(header())
    for name in STAGES:
        if name in split:
            print(row(name, split[name]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Web throughput: GET /api/v1/problems and POST /api/v1/submissions under N closed-loop clients.

    .venv/bin/python bench/web_throughput.py [--pg postgres://postgres@127.0.0.1:5432] [--redis-url URL]
        [--web-processes 2] [--clients 50] [--duration 60] [--warmup 5] [--history 20000]
        [--only list|submit] [--queue-seconds 1]

A throwaway PostgreSQL database with Redis (as in production), the production web server
(`python -m core.webserver`, as `scripts/serve.sh web` runs it) with --web-processes processes, no
worker. The database first gets --history finished submissions of 200
users over every problem (a third of them solved, some ranked), so that the problem list's solved
counts, bests and speed of light read a history, not an empty table.

The quotas are raised so that every POST is taken (a refusal is cheaper and would say nothing of
taking a submission). With no worker the queue would then grow without bound (9,000 after a minute),
which production cannot reach: HIPJUDGE_QUOTA_CONCURRENT (2) caps each user's queued submissions, so
50 users queue at most 100. Every POST reads its place in the queue, which counts the pool's queue,
so a queue that production cannot have would measure a cost it does not pay. While the POSTs run,
the bench therefore plays a pool that keeps up: every 0.2 s it ends (ACCEPTED) the submissions
queued for over --queue-seconds (1 s: 3 to 5 per user at these rates, more than production's 2),
with one UPDATE, on a connection of its own whose CPU counts with PostgreSQL's. --queue-seconds 0
leaves them all queued, as before. The table gives the queue's length at the end of each run.

The client is one asyncio loop in this process holding --clients kept-alive HTTP/1.1 connections,
each sending its next request as soon as the last one is answered (closed loop), every connection
as another user (quotas raised). It runs on the same machine as the server: the table gives the
load average before and after each run, as the machine may be shared.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from platform_env import Platform, pct, pg_backends_cpu_seconds, tree_cpu_seconds  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Run:
    name: str
    latencies_ms: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    errors: int = 0
    wall_s: float = 0.0
    load_before: float = 0.0
    load_after: float = 0.0
    refusals: dict[int, bytes] = field(default_factory=dict)  # the first body of each status >= 400
    web_cpu_s: float = 0.0  # of the web processes during the run
    pg_cpu_s: float = 0.0  # of the bench database's PostgreSQL backends
    client_cpu_s: float = 0.0  # of this process, the clients
    queued_after: int = 0  # submissions still queued when the run ended

    def cpu_ms_per_request(self, seconds: float) -> float:
        return seconds / max(1, len(self.latencies_ms)) * 1000


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> tuple[int, bytes]:
    """Send one request on a kept-alive connection and read its whole answer: (status, body)."""
    writer.write(request)
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    length, chunked = 0, False
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        if name.lower() == "content-length":
            length = int(value)
        elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
            chunked = True
    if not chunked:
        return status, await reader.readexactly(length)
    body = b""
    while (size := int((await reader.readline()).strip() or b"0", 16)) > 0:
        body += (await reader.readexactly(size + 2))[:-2]
    await reader.readline()
    return status, body


async def _client(host: str, port: int, requests: list[bytes], until: float, run: Run | None) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    turn = 0
    try:
        while time.perf_counter() < until:
            request = requests[turn % len(requests)]
            turn += 1
            started = time.perf_counter()
            try:
                status, body = await _exchange(reader, writer, request)
            except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
                if run is not None:
                    run.errors += 1
                writer.close()
                reader, writer = await asyncio.open_connection(host, port)
                continue
            if run is not None:
                run.latencies_ms.append((time.perf_counter() - started) * 1000)
                run.statuses[status] = run.statuses.get(status, 0) + 1
                if status >= 400:
                    run.refusals.setdefault(status, body[:300])
    finally:
        writer.close()


def drive(platform: Platform, host: str, port: int, per_client: list[list[bytes]], seconds: float,
          run: Run | None) -> None:
    async def main() -> None:
        until = time.perf_counter() + seconds
        await asyncio.gather(*(_client(host, port, requests, until, run) for requests in per_client))

    def cpu() -> tuple[float, float]:
        return tree_cpu_seconds(platform.web.pid), pg_backends_cpu_seconds(platform.pg_db) if platform.pg_db else 0.0

    began, (web_cpu, pg_cpu), client_cpu = time.perf_counter(), cpu(), time.process_time()
    if run is not None:
        run.load_before = os.getloadavg()[0]
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        runner.run(main())
    if run is not None:
        run.wall_s = time.perf_counter() - began
        run.client_cpu_s = time.process_time() - client_cpu
        run.load_after = os.getloadavg()[0]
        run.web_cpu_s, run.pg_cpu_s = cpu()[0] - web_cpu, cpu()[1] - pg_cpu


class PoolThatKeepsUp:
    """While running, ends every 0.2 s the submissions queued for more than `seconds` (a worker
    that judges as fast as they come), so that the queue stays as long as production's quotas keep
    it. Its own connection: its PostgreSQL CPU counts with the requests'."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.stop = seconds, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PoolThatKeepsUp:
        if self.seconds > 0:
            self.thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(timeout=10)

    def _run(self) -> None:
        from datetime import timedelta

        from django.db import connection
        from django.utils import timezone

        from submissions.models import Status, Submission

        try:
            while not self.stop.wait(0.2):
                now = timezone.now()
                Submission.objects.filter(status=Status.IN_QUEUE, queued_at__lt=now - timedelta(seconds=self.seconds)
                                          ).update(status=Status.ACCEPTED, finished_at=now)
        finally:
            connection.close()


def queued_now() -> int:
    from submissions.models import Status, Submission

    return Submission.objects.filter(status=Status.IN_QUEUE).count()


def _loop_factory() -> Any:
    """uvloop where installed (it is, with uvicorn[standard]): the clients share the machine's CPUs
    with the server, so the less they take the more the figures say of the server."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def seed_history(count: int) -> None:
    """`count` finished submissions of 200 users on every problem: solved, ranked and failed ones."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from fleets.models import Pool
    from leaderboard.models import LeaderboardEntry
    from submissions.models import Problem, Status, Submission

    user_model = get_user_model()
    unusable = make_password(None)
    users = user_model.objects.bulk_create([user_model(username=f"past{i}", password=unusable) for i in range(200)])
    pool = Pool.objects.get(name="local")
    problems = list(Problem.objects.filter(is_active=True).exclude(current_version=None))
    rng = random.Random(7)
    rows, entries = [], []
    for _ in range(count):
        problem, user = rng.choice(problems), rng.choice(users)
        solved = rng.random() < 0.35
        ranked = solved and rng.random() < 0.3
        rows.append(Submission(user=user, problem=problem, problem_version=problem.current_version, pool=pool,
                               language="cpp", mode="leaderboard" if ranked else "benchmark", source="// past",
                               status=Status.ACCEPTED if solved else Status.WRONG_ANSWER,
                               score_ms=rng.uniform(0.5, 5) if solved else None))
        if ranked:
            entries.append(LeaderboardEntry(submission=rows[-1], ranked_score_ms=rng.uniform(0.5, 5)))
    Submission.objects.bulk_create(rows, batch_size=2000)
    LeaderboardEntry.objects.bulk_create(entries, batch_size=2000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--web-processes", type=int, default=2)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--history", type=int, default=20000)
    parser.add_argument("--only", choices=("list", "submit"))
    parser.add_argument("--queue-seconds", type=float, default=1.0,
                        help="end the submissions queued for longer than this (0: none)")
    args = parser.parse_args()
    platform = Platform(pg_server=args.pg or None, redis_url=args.redis_url or None)
    try:
        return run(platform, args)
    finally:
        platform.close()


def run(platform: Platform, args: argparse.Namespace) -> int:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from accounts.tokens import token_create

    seed_history(args.history)
    user_model = get_user_model()
    users = user_model.objects.bulk_create([user_model(username=f"bench{i}", password=make_password(None))
                                            for i in range(args.clients)])
    tokens = [token_create(user=u).key for u in users]
    url = platform.start_web(args.web_processes, server="core.webserver")
    host, port = "127.0.0.1", int(url.rsplit(":", 1)[1])
    source = (ROOT / "problems/vector-add/solutions/cpp.cpp").read_text()
    body = json.dumps({"problem": "vector-add", "language": "cpp", "source": source, "mode": "check"}).encode()

    def get(token: str) -> bytes:
        return (f"GET /api/v1/problems HTTP/1.1\r\nHost: {host}\r\nAuthorization: Token {token}\r\n"
                "Accept: application/json\r\n\r\n").encode()

    def post(token: str) -> bytes:
        return (f"POST /api/v1/submissions HTTP/1.1\r\nHost: {host}\r\nAuthorization: Token {token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body

    shapes = {"list": ("GET /api/v1/problems", get), "submit": ("POST /api/v1/submissions", post)}
    runs = []
    for key, (name, build) in shapes.items():
        if args.only and key != args.only:
            continue
        per_client = [[build(token)] for token in tokens]
        with PoolThatKeepsUp(args.queue_seconds if key == "submit" else 0):
            drive(platform, host, port, per_client, args.warmup, None)  # imports, pools, caches: not measured
            measured = Run(name)
            drive(platform, host, port, per_client, args.duration, measured)
        measured.queued_after = queued_now()
        runs.append(measured)

    leaving = (f"the pool ends what waited {args.queue_seconds:g} s" if args.queue_seconds > 0
               else "nothing leaves the queue")
    print(f"\n{args.clients} closed-loop clients, {args.duration:.0f} s each, against {args.web_processes} web "
          f"processes (python -m core.webserver), PostgreSQL + Redis, {args.history} past submissions; "
          f"{os.cpu_count()} CPUs, shared; {leaving}")
    print("  (CPU per request: of the web processes / of the bench database's PostgreSQL backends / of the\n"
          "   clients; these move less than the latencies with the load that others put on the machine)")
    print(f"  {'request':<26} {'req/s':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} "
          f"{'web CPU ms':>10} {'PG CPU ms':>9} {'client ms':>9} {'statuses':<12} {'errors':>6} "
          f"{'load before/after':>18} {'queued':>7}")
    for r in runs:
        statuses = " ".join(f"{k}:{v}" for k, v in sorted(r.statuses.items()))
        print(f"  {r.name:<26} {len(r.latencies_ms) / r.wall_s:7.1f} {pct(r.latencies_ms, 50):8.1f} "
              f"{pct(r.latencies_ms, 95):8.1f} {pct(r.latencies_ms, 99):8.1f} {max(r.latencies_ms, default=0):8.1f} "
              f"{r.cpu_ms_per_request(r.web_cpu_s):10.1f} {r.cpu_ms_per_request(r.pg_cpu_s):9.1f} "
              f"{r.cpu_ms_per_request(r.client_cpu_s):9.1f} "
              f"{statuses:<12} {r.errors:>6} {r.load_before:8.1f} / {r.load_after:<7.1f} {r.queued_after:>7}")
    for r in runs:
        for status, body in sorted(r.refusals.items()):
            print(f"  {r.name}: the first {status}: {body.decode(errors='replace')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""API load: POST /api/v1/submissions throughput and latency, then 200 concurrent SSE streams held
open while other requests are timed.

    .venv/bin/python bench/api_load.py [--pg postgres://postgres@127.0.0.1:5432] [--broker orm|redis]
        [--client auto|wrk|python] [--runs 2] [--duration 20] [--posts 2000] [--concurrency 16]
        [--web-workers 2] [--uvicorn-args "--loop asyncio --http h11"] [--raise-quotas]
        [--streams 200] [--probes 300]

A throwaway PostgreSQL database (SQLite with --pg ''), uvicorn serving config.asgi, no worker: the
submissions stay queued (the queue grows with every POST; its length is printed) and their event
streams stay open.

Quotas stay at their defaults (100 a day, 2 concurrent per user): users and their API tokens are
created up front and each user posts at most as often as the concurrent quota, so every POST runs
the quota check for real and is accepted. --raise-quotas instead raises both quotas to 1,000,000 for
the server (and says so) and 50 users post everything.

Client: `wrk` (Debian package wrk, with bench/wrk_post.lua) when installed: a C load generator that
takes a few percent of a core. Otherwise, or with --client python, Python threads with kept-alive
HTTP/1.1 connections, which take a good part of a core from the server on a small machine. Either
way the client runs on this machine, with the concurrency given, after a warm-up that is not
counted. Each run prints the client, its exact command, the result, and the CPU that the web
processes and the PostgreSQL backends of the bench database spent per request.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import importlib.util
import json
import math
import os
import shlex
import shutil
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from platform_env import (  # noqa: E402
    Platform,
    header,
    pg_backends_cpu_seconds,
    row,
    tree_cpu_seconds,
)
from post_clients import Result, Users, post  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DAILY, DEFAULT_CONCURRENT = 100, 2  # config/settings.py defaults, kept unless --raise-quotas
MAX_RATE = 400  # req/s no run here can reach: sizes the users of a wrk run (which lasts --duration)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--broker", choices=("orm", "redis"), default="redis")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--client", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--runs", type=int, default=2, help="measured POST runs, one after the other")
    parser.add_argument("--duration", type=int, default=20, help="seconds per run (wrk)")
    parser.add_argument("--posts", type=int, default=2000, help="POSTs per run (python client)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of POSTs before each run, not counted")
    parser.add_argument("--concurrency", type=int, default=16, help="connections")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--uvicorn-args", default="", help="more uvicorn options, e.g. '--loop asyncio --http h11'")
    parser.add_argument("--raise-quotas", action="store_true")
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--probes", type=int, default=300)
    args = parser.parse_args()
    if args.client == "auto":
        args.client = "wrk" if shutil.which("wrk") else "python"
    if args.client == "wrk" and not shutil.which("wrk"):
        parser.error("--client wrk: wrk is not installed (apt-get install wrk)")
    # Platform raises the quotas itself; the default run puts them back.
    quotas = None if args.raise_quotas else {"HIPJUDGE_QUOTA_DAILY": str(DEFAULT_DAILY),
                                             "HIPJUDGE_QUOTA_CONCURRENT": str(DEFAULT_CONCURRENT)}
    platform = Platform(pg_server=args.pg or None, redis_url=args.redis_url if args.broker == "redis" else None,
                        extra_env=quotas)
    try:
        return run(platform, args)
    finally:
        platform.close()


def run(platform: Platform, args: argparse.Namespace) -> int:
    from django.conf import settings

    if args.raise_quotas:  # 50 users take turns (each request the next user), posting without limit
        per_user, users_needed = 1, 50
    else:  # fresh users for every run and warm-up, each posting at most the concurrent quota
        per_user = DEFAULT_CONCURRENT
        warm_users = math.ceil(MAX_RATE * args.warmup / per_user) + args.concurrency
        run_users = math.ceil((MAX_RATE * args.duration if args.client == "wrk" else args.posts) / per_user)
        run_users += args.concurrency
        users_needed = (warm_users + run_users) * args.runs
    users = Users(platform, users_needed)
    url = platform.start_web(args.web_workers, shlex.split(args.uvicorn_args))
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    source = (ROOT / "problems/vector-add/solutions/cpp.cpp").read_text()
    body = json.dumps({"problem": "vector-add", "language": "cpp", "source": source, "mode": "check"})
    body_path = platform.tmp / "body.json"
    body_path.write_text(body)

    database = "PostgreSQL" if settings.IS_POSTGRES else "SQLite"
    broker = "Redis" if settings.REDIS_URL else "ORM"
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    parser = "httptools" if importlib.util.find_spec("httptools") else "h11"
    print(f"\nPOST /api/v1/submissions: {database}, {broker} broker, uvicorn x{args.web_workers} "
          f"({args.uvicorn_args or f'auto: {loop} loop, {parser} parser'}), client {args.client}, "
          f"{args.concurrency} connections, on this {os.cpu_count()}-CPU machine")
    print(f"  server: {shlex.join(platform.web_command)}")
    if args.raise_quotas:
        print("  quotas RAISED for this bench: HIPJUDGE_QUOTA_DAILY=HIPJUDGE_QUOTA_CONCURRENT=1000000, 50 users")
    else:
        print(f"  quotas at their defaults ({DEFAULT_DAILY} a day, {DEFAULT_CONCURRENT} concurrent per user): "
              f"{users_needed} users, each posting at most {per_user} times")

    from submissions.models import Status, Submission

    web_pid = platform.web.pid
    for number in range(1, args.runs + 1):
        warm = (0, users_needed) if args.raise_quotas else users.take(warm_users)
        measured = (0, users_needed) if args.raise_quotas else users.take(run_users)
        if args.warmup > 0:  # imports, URL resolver, connection pools, caches: not what is measured
            post(args, url, host, port, users, body, body_path, warm, per_user, args.warmup, None)
        queued_before = Submission.objects.filter(status=Status.IN_QUEUE).count()
        web_cpu, pg_cpu = tree_cpu_seconds(web_pid), pg_cpu_seconds(platform)
        result = post(args, url, host, port, users, body, body_path, measured, per_user, args.duration,
                      args.posts)
        if args.raise_quotas:
            result.exhausted = 0  # taking turns round the 50 users is the point there
        web_cpu = tree_cpu_seconds(web_pid) - web_cpu
        pg_cpu = pg_cpu_seconds(platform) - pg_cpu
        report(number, result, queued_before, web_cpu, pg_cpu if platform.pg_db else None)

    # ---- SSE streams held while other requests are timed ---------------------------------------
    created = [(str(sid), users.key_by_user[uid]) for sid, uid in Submission.objects.filter(
        status=Status.IN_QUEUE).order_by("-created_at").values_list("id", "user_id")[: max(args.streams, 50)]]
    targets = created[: args.streams]
    holder = StreamHolder(host, port, targets)
    holder.start()
    if not holder.ready.wait(120):
        print(f"  only {holder.open_count} of {len(targets)} streams opened", file=sys.stderr)
    probe_ms: list[float] = []
    conn = http.client.HTTPConnection(host, port, timeout=30)
    for i in range(args.probes):
        sid, token = created[i % min(50, len(created))]
        path = f"/api/v1/submissions/{sid}" if i % 2 else "/api/v1/problems"
        start = time.perf_counter()
        conn.request("GET", path, headers={"Authorization": f"Token {token}"})
        response = conn.getresponse()
        response.read()
        probe_ms.append((time.perf_counter() - start) * 1000)
        assert response.status == 200, response.status

    # Live delivery through the held streams: append an event, time its arrival on the stream.
    from django.db import transaction

    from submissions.services import EventIn, append_events_locked, lock_submission

    delivery: list[float] = []
    for sid, _ in targets[:40]:
        holder.expect(sid)
        with transaction.atomic():
            locked = lock_submission(sid)
            assert locked is not None
            append_events_locked(locked, [EventIn("BENCH_PING", {"t": time.time()})])
        sent = time.perf_counter()
        arrived = holder.wait_for(sid, 10)
        if arrived is not None:
            delivery.append((arrived - sent) * 1000)
    still_open = holder.open_count
    holder.stop()
    print(f"\n{len(targets)} concurrent SSE streams held open ({still_open} still open at the end); "
          f"meanwhile, sequential GETs (problem list / submission detail):")
    print(header())
    print(row(f"other requests ({len(probe_ms)})", probe_ms))
    print(row(f"event -> SSE client ({len(delivery)})", delivery or [float("nan")]))
    return 0


def pg_cpu_seconds(platform: Platform) -> float:
    return pg_backends_cpu_seconds(platform.pg_db) if platform.pg_db else 0.0


def report(number: int, result: Result, queued_before: int, web_cpu: float, pg_cpu: float | None) -> None:
    created = result.statuses.get(201, 0)
    others = {k: v for k, v in sorted(result.statuses.items()) if k != 201}
    lat = result.latencies_ms
    n = max(result.requests, 1)
    print(f"\n  run {number}: {result.command}")
    print(f"    requests {result.requests}  created (201) {created}  other statuses {others or 'none'}  "
          f"socket errors {result.socket_errors}  wall {result.wall_s:.1f} s  queue at start {queued_before}")
    print(f"    throughput {created / result.wall_s:.1f} req/s   latency p50 {lat['p50']:.1f} ms  "
          f"p95 {lat['p95']:.1f} ms  p99 {lat['p99']:.1f} ms  max {lat['max']:.1f} ms")
    pg = f", PostgreSQL {pg_cpu / n * 1000:.1f} ms" if pg_cpu is not None else ""
    print(f"    CPU per request: web {web_cpu / n * 1000:.1f} ms{pg}, client {result.client_cpu_s / n * 1000:.1f} ms; "
          f"load average {os.getloadavg()[0]:.1f}")
    if result.exhausted:
        print(f"    WARNING: {result.exhausted} requests reused a user (not enough users): 429s expected")
    for error in result.errors[:1]:
        print(f"    first error: {error}")


class StreamHolder:
    """One asyncio loop in a thread holding many SSE connections, noting when events arrive."""

    def __init__(self, host: str, port: int, targets: list[tuple[str, str]]) -> None:
        self.host, self.port, self.targets = host, port, targets
        self.ready = threading.Event()
        self.open_count = 0
        self._seen: dict[str, float] = {}
        self._watch: set[str] = set()
        self._cond = threading.Condition()
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None

    def start(self) -> None:
        threading.Thread(target=self._loop.run_until_complete, args=(self._main(),), daemon=True).start()

    def stop(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)

    def expect(self, sid: str) -> None:
        with self._cond:
            self._watch.add(sid)
            self._seen.pop(sid, None)

    def wait_for(self, sid: str, timeout: float) -> float | None:
        with self._cond:
            self._cond.wait_for(lambda: sid in self._seen, timeout)
            return self._seen.get(sid)

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        tasks = [asyncio.create_task(self._one(sid, token)) for sid, token in self.targets]
        await self._stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _one(self, sid: str, token: str) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        writer.write((f"GET /api/v1/submissions/{sid}/events HTTP/1.1\r\nHost: {self.host}\r\n"
                      f"Authorization: Token {token}\r\nAccept: text/event-stream\r\n\r\n").encode())
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            return
        self.open_count += 1
        if self.open_count == len(self.targets):
            self.ready.set()
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                if line.startswith(b"event: BENCH_PING"):
                    with self._cond:
                        if sid in self._watch:
                            self._seen[sid] = time.perf_counter()
                            self._cond.notify_all()
        finally:
            self.open_count -= 1
            writer.close()


if __name__ == "__main__":
    sys.exit(main())

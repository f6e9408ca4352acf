"""API load: POST /api/v1/submissions throughput and latency, then 200 concurrent SSE streams held
open while other requests are timed.

    .venv/bin/python bench/api_load.py [--pg postgres://postgres@127.0.0.1:5432] [--broker orm|redis]
                                       [--posts 2000] [--concurrency 16] [--streams 200] [--probes 300]

A throwaway PostgreSQL database (SQLite with --pg ''), uvicorn serving config.asgi, no worker (the
submissions stay queued, so their event streams stay open). Clients are threads with kept-alive
HTTP/1.1 connections (POSTs) and one asyncio loop holding the SSE connections; they run on the
same machine as the server and compete with it for the CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from platform_env import Platform, header, pct, row  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--broker", choices=("orm", "redis"), default="redis")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--posts", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--probes", type=int, default=300)
    parser.add_argument("--web-workers", type=int, default=1)
    args = parser.parse_args()
    platform = Platform(pg_server=args.pg or None, redis_url=args.redis_url if args.broker == "redis" else None)
    try:
        return run(platform, args)
    finally:
        platform.close()


def run(platform: Platform, args: argparse.Namespace) -> int:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    users = [get_user_model().objects.create_user(f"load{i}", password="load-password") for i in range(args.users)]
    tokens = [Token.objects.create(user=u).key for u in users]
    url = platform.start_web(args.web_workers)
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    source = (ROOT / "problems/vector-add/solutions/cpp.cpp").read_text()
    body = json.dumps({"problem": "vector-add", "language": "cpp", "source": source, "mode": "check"})

    # ---- POST throughput ----------------------------------------------------------------------
    latencies: list[float] = []
    created: list[tuple[str, str]] = []
    errors: list[str] = []
    counter = iter(range(args.posts))
    lock = threading.Lock()

    def poster(worker: int) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=30)
        while True:
            with lock:
                i = next(counter, None)
            if i is None:
                return
            token = tokens[i % len(tokens)]
            start = time.perf_counter()
            try:
                conn.request("POST", "/api/v1/submissions", body=body, headers={
                    "Authorization": f"Token {token}", "Content-Type": "application/json"})
                response = conn.getresponse()
                data = response.read()
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=30)
                with lock:
                    errors.append(repr(exc))
                continue
            elapsed = (time.perf_counter() - start) * 1000
            with lock:
                latencies.append(elapsed)
                if response.status == 201:
                    created.append((json.loads(data)["id"], token))
                else:
                    errors.append(f"HTTP {response.status}: {data[:200]!r}")

    threads = [threading.Thread(target=poster, args=(w,)) for w in range(args.concurrency)]
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - began
    database = "PostgreSQL" if settings.IS_POSTGRES else "SQLite"
    broker = "Redis" if settings.REDIS_URL else "ORM"
    print(f"\nPOST /api/v1/submissions: {database}, {broker} broker, uvicorn x{args.web_workers}, "
          f"{args.concurrency} client threads, {args.users} users")
    print(f"  requests {len(latencies)}  created {len(created)}  errors {len(errors)}  "
          f"wall {wall:.1f} s  throughput {len(created) / wall:.1f} req/s")
    print(f"  latency p50 {pct(latencies, 50):.1f} ms  p95 {pct(latencies, 95):.1f} ms  "
          f"p99 {pct(latencies, 99):.1f} ms  max {max(latencies):.1f} ms")
    if errors:
        print(f"  first error: {errors[0]}")

    # ---- SSE streams held while other requests are timed ---------------------------------------
    targets = created[: args.streams]
    holder = StreamHolder(host, port, targets)
    holder.start()
    if not holder.ready.wait(120):
        print(f"  only {holder.open_count} of {len(targets)} streams opened", file=sys.stderr)
    probe_ms: list[float] = []
    conn = http.client.HTTPConnection(host, port, timeout=30)
    for i in range(args.probes):
        sid, token = created[-1 - (i % 50)]
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

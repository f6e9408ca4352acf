"""The load clients of bench/api_load.py: API users with tokens, and POST runs through wrk (cheap
on CPU, so the server gets the cores) or Python threads with kept-alive connections."""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shlex
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from platform_env import Platform, pct

WRK_SCRIPT = Path(__file__).resolve().parent / "wrk_post.lua"


@dataclass
class Result:
    """One measured POST run."""

    command: str
    wall_s: float
    statuses: dict[int, int]
    latencies_ms: dict[str, float]  # p50 p95 p99 max
    socket_errors: int = 0
    exhausted: int = 0
    client_cpu_s: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return sum(self.statuses.values())


class Users:
    """API tokens created up front; runs take consecutive, unused slices of them."""

    def __init__(self, platform: Platform, count: int) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.hashers import make_password

        from accounts.tokens import token_create

        user_model = get_user_model()
        unusable = make_password(None)
        users = user_model.objects.bulk_create(
            [user_model(username=f"load{i}", password=unusable) for i in range(count)])
        self.tokens = [token_create(user=u).key for u in users]
        self.key_by_user = {u.pk: key for u, key in zip(users, self.tokens, strict=True)}
        self.path = platform.tmp / "tokens.txt"
        self.path.write_text("\n".join(self.tokens) + "\n")
        self.next = 0

    def take(self, count: int) -> tuple[int, int]:
        first, self.next = self.next, min(len(self.tokens), self.next + count)
        return first, self.next


def post(args: argparse.Namespace, url: str, host: str, port: int, users: Users, body: str, body_path: Path,
         slice_: tuple[int, int], per_user: int, duration: float, posts: int | None) -> Result:
    """POSTs as the users of slice_ (first, last): for `duration` s with wrk; `posts` of them with the
    Python client (for `duration` s when posts is None: the warm-up)."""
    if args.client == "wrk":
        return post_wrk(args, url, users, body_path, slice_, per_user, duration)
    return post_python(args, host, port, users, body, slice_, per_user, duration, posts)


def post_wrk(args: argparse.Namespace, url: str, users: Users, body_path: Path, slice_: tuple[int, int],
             per_user: int, duration: float) -> Result:
    command = ["wrk", "-t", str(args.threads), "-c", str(args.concurrency), "-d", f"{max(1, round(duration))}s",
               "-s", str(WRK_SCRIPT), f"{url}/api/v1/submissions", "--", str(users.path), str(body_path),
               str(slice_[0]), str(slice_[1]), str(per_user), str(args.threads)]
    out_path = users.path.with_name("wrk.out")
    with out_path.open("w") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        _, wait_status, usage = os.wait4(proc.pid, 0)  # wait4: wrk's own CPU time, for the report
    proc.returncode = os.waitstatus_to_exitcode(wait_status)
    output = out_path.read_text()
    line = next((ln for ln in output.splitlines() if ln.startswith("WRK_RESULT ")), None)
    if line is None:
        raise RuntimeError(f"wrk gave no result (exit {proc.returncode}):\n{output}")
    data = json.loads(line.removeprefix("WRK_RESULT "))
    return Result(command=shlex.join(command), wall_s=data["duration_us"] / 1e6,
                  statuses={int(k): v for k, v in data["statuses"].items()},
                  latencies_ms={k: data[k] for k in ("p50", "p95", "p99", "max")},
                  socket_errors=data["socket_errors"], exhausted=data["exhausted"],
                  client_cpu_s=usage.ru_utime + usage.ru_stime)


def post_python(args: argparse.Namespace, host: str, port: int, users: Users, body: str, slice_: tuple[int, int],
                per_user: int, duration: float, count: int | None) -> Result:
    """Threads with kept-alive connections; `count` POSTs, or as many as fit in `duration` s."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    errors: list[str] = []
    counter = iter(range(count if count is not None else 10**9))
    deadline = time.perf_counter() + (duration if count is None else 10**9)
    lock = threading.Lock()
    exhausted = 0
    first, last = slice_

    def poster() -> None:
        nonlocal exhausted
        conn = http.client.HTTPConnection(host, port, timeout=30)
        while time.perf_counter() < deadline:
            with lock:
                i = next(counter, None)
            if i is None:
                return
            user = first + i // per_user
            if user >= last:
                with lock:
                    exhausted += 1
                user = first + (user - first) % (last - first)
            start = time.perf_counter()
            try:
                conn.request("POST", "/api/v1/submissions", body=body, headers={
                    "Authorization": f"Token {users.tokens[user]}", "Content-Type": "application/json"})
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
                statuses[response.status] = statuses.get(response.status, 0) + 1
                if response.status != 201 and len(errors) < 5:
                    errors.append(f"HTTP {response.status}: {data[:200]!r}")

    threads = [threading.Thread(target=poster) for _ in range(args.concurrency)]
    cpu = time.process_time()
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - began
    what = f"{count} POSTs" if count is not None else f"{duration:.0f} s of POSTs"
    return Result(command=f"Python client in this process: {args.concurrency} threads, http.client keep-alive, {what}",
                  wall_s=wall, statuses=statuses,
                  latencies_ms={"p50": pct(latencies, 50), "p95": pct(latencies, 95), "p99": pct(latencies, 99),
                                "max": max(latencies, default=float("nan"))},
                  socket_errors=len([e for e in errors if not e.startswith("HTTP")]), exhausted=exhausted,
                  client_cpu_s=time.process_time() - cpu, errors=errors)

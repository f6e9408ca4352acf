"""Readiness (/readyz): is this web process able to serve, and is the platform behind it working?

Checks: the database answers, the broker answers (Redis; the ORM broker is the database), a worker
cluster beat recently (core.heartbeat), and the dstack server answers when an enabled pool uses it.
Each check runs in a small thread pool under one deadline, so a probe never hangs on a dead
dependency; a check still running from an earlier probe is waited for, not started again, so probes
during an outage cannot take every thread (a fault run saw the Redis check starve behind stuck
database checks and /readyz call Redis down while it was up). The dstack answer is cached (one call
per HIPJUDGE_READY_DSTACK_CACHE seconds per process, however many probes come) so a load balancer
cannot hammer the dstack server, and dstack is reported only where a pool uses it: while the
database is away, only if this process last saw such a pool.

The answer names what failed by the error's class only: it is served without authentication, so it
shows no host names, URLs or messages.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connections

from core import clock
from core.heartbeat import heartbeat_latest
from fleets.models import Backend, Pool

# Threads for checks; one stuck on a dead dependency keeps its thread until that call times out, and
# further probes then report the check as unanswered instead of starting more threads.
_pool = ThreadPoolExecutor(max_workers=6, thread_name_prefix="readyz")


class NotReady(Exception):
    """A check's finding, as a sentence that reveals nothing about the infrastructure."""

    def __init__(self, message: str, detail: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.detail = detail or {}


@dataclass
class Finding:
    ok: bool
    detail: dict[str, Any] = field(default_factory=dict)


def _in_thread(check: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
    """Run `check` with this thread's own database connection, given back afterwards; times it."""
    def run() -> dict[str, Any]:
        started = time.monotonic()
        try:
            detail = check()
        finally:
            connections.close_all()
        return {**detail, "ms": round((time.monotonic() - started) * 1000, 1)}
    return run


def _database() -> dict[str, Any]:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"engine": connections["default"].vendor}


@cache
def _redis() -> Any:
    import redis

    timeout = settings.HIPJUDGE_READY_TIMEOUT
    return redis.Redis.from_url(str(settings.REDIS_URL), socket_timeout=timeout, socket_connect_timeout=timeout)


def _broker() -> dict[str, Any]:
    if not settings.REDIS_URL:
        return {"kind": "orm"}  # the queue is a table: the database check covers it
    _redis().ping()
    return {"kind": "redis"}


def _heartbeat() -> dict[str, Any]:
    latest = heartbeat_latest()
    if latest is None:
        raise NotReady("no worker has reported yet")
    age = (clock.now() - latest).total_seconds()
    limit = settings.HIPJUDGE_HEARTBEAT_MAX_AGE
    if age > limit:
        raise NotReady(f"the last worker heartbeat is {age:.0f} s old (limit {limit} s)")
    return {"age_s": round(age, 1)}


class _DstackCache:
    """One dstack call at a time per process, its answer reused for a while."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._until = 0.0
        self._result: Finding | None = None
        self.configured = False  # an enabled pool used dstack when the pools were last read

    def get(self) -> Finding | None:
        """None when no enabled pool uses dstack (the check is left out)."""
        pools = sorted(Pool.objects.filter(enabled=True, backend=Backend.DSTACK).values_list("name", flat=True))
        self.configured = bool(pools)
        if not pools:
            return None
        with self._lock:  # a probe that arrives during the call waits for its answer
            if self._result is None or time.monotonic() >= self._until:
                self._result = self._call()
                self._until = time.monotonic() + settings.HIPJUDGE_READY_DSTACK_CACHE
                cached = False
            else:
                cached = True
            return Finding(self._result.ok, {**self._result.detail, "pools": pools, "cached": cached})

    def _call(self) -> Finding:
        from fleets.dstack_pools.config import dstack_client  # imports dstack's client: only with a dstack pool

        timeout = settings.HIPJUDGE_READY_TIMEOUT
        try:
            dstack_client(timeout_s=timeout, connect_retries=0, retry_budget_s=timeout).server_version()
        except Exception as exc:
            return Finding(False, {"error": type(exc).__name__})
        return Finding(True)


_dstack = _DstackCache()


def _dstack_check() -> dict[str, Any]:
    finding = _dstack.get()
    if finding is None:
        return {"skipped": True}
    if not finding.ok:
        raise NotReady(f"the dstack server does not answer ({finding.detail.pop('error', '')})", finding.detail)
    return finding.detail


CHECKS: dict[str, Callable[[], dict[str, Any]]] = {
    "database": _database,
    "broker": _broker,
    "worker_heartbeat": _heartbeat,
    "dstack": _dstack_check,
}


def _outcome(future: Future, deadline: float) -> Finding:
    try:
        return Finding(True, future.result(timeout=max(0.0, deadline - time.monotonic())))
    except FutureTimeout:
        return Finding(False, {"error": f"no answer within {settings.HIPJUDGE_READY_TIMEOUT:g} s"})
    except NotReady as exc:
        return Finding(False, {**exc.detail, "error": str(exc)})
    except Exception as exc:
        return Finding(False, {"error": type(exc).__name__})


_running: dict[tuple[str, Callable], Future] = {}
_running_lock = threading.Lock()


def _start(name: str, check: Callable[[], dict[str, Any]]) -> Future:
    """The check's future: the one an earlier probe started if it is still running, else a new one."""
    with _running_lock:
        future = _running.get((name, check))
        if future is None or future.done():
            future = _running[(name, check)] = _pool.submit(_in_thread(check))
        return future


def readiness() -> tuple[bool, dict[str, Any]]:
    """(ready, the JSON body). Checks run in parallel under one deadline."""
    deadline = time.monotonic() + settings.HIPJUDGE_READY_TIMEOUT
    futures = {name: _start(name, check) for name, check in CHECKS.items()}
    findings = {name: _outcome(future, deadline) for name, future in futures.items()}
    if not findings["database"].ok:  # these read the database: their own failure says nothing new
        for name in ("worker_heartbeat", "dstack"):
            if not findings[name].ok:
                findings[name] = Finding(False, {"error": "not checked: the database does not answer"})
        if not _dstack.configured:  # no pool used dstack when last seen: nothing to report
            findings["dstack"] = Finding(True, {"skipped": True})
    if findings["dstack"].detail.get("skipped"):
        del findings["dstack"]
    failing = [name for name, finding in findings.items() if not finding.ok]
    body = {
        "status": "unavailable" if failing else "ok",
        "failing": failing,
        "checks": {name: {"ok": f.ok, **f.detail} for name, f in findings.items()},
    }
    return not failing, body

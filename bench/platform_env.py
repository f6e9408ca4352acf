"""Shared plumbing of the platform benchmarks: a throwaway database and var/ folder, Django set up
in this process, and the real web / worker processes started against the same database."""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


class Platform:
    """Configure env (before django.setup), create the database, start/stop processes."""

    def __init__(self, *, pg_server: str | None = None, redis_url: str | None = None,
                 extra_env: dict[str, str] | None = None) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="hipjudge-bench-"))
        self.pg_server, self.pg_db = pg_server, None
        if pg_server:
            self.pg_db = f"hipjudge_bench_{uuid.uuid4().hex[:8]}"
            self._pg(f'CREATE DATABASE "{self.pg_db}"')
            database_url = f"{pg_server.rstrip('/')}/{self.pg_db}"
        else:
            database_url = f"sqlite:///{self.tmp / 'bench.sqlite3'}"
        self.env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        self.env.update({
            "DATABASE_URL": database_url,
            "HIPJUDGE_VAR_DIR": str(self.tmp / "var"),
            "HIPJUDGE_LOCAL_AGENT_ROOT": str(self.tmp / "agents"),
            "HIPJUDGE_Q_NAME": f"hipjudge-bench-{uuid.uuid4().hex[:8]}",
            "HIPJUDGE_QUOTA_DAILY": "1000000",
            "HIPJUDGE_QUOTA_CONCURRENT": "1000000",
            "HIPJUDGE_LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
            **(extra_env or {}),
        })
        if redis_url:
            self.env["REDIS_URL"] = redis_url
        os.environ.clear()
        os.environ.update(self.env)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command

        self.env["DJANGO_SECRET_KEY"] = settings.SECRET_KEY
        call_command("migrate", verbosity=0)
        call_command("load_problems", verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
        call_command("ensure_local_pool", stdout=open(os.devnull, "w"), stderr=open(os.devnull, "w"))  # noqa: SIM115
        self.procs: list[subprocess.Popen] = []

    def _pg(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(f"{self.pg_server.rstrip('/')}/postgres", autocommit=True) as conn:  # type: ignore[union-attr]
            conn.execute(sql)  # type: ignore[arg-type]

    def spawn(self, args: list[str], name: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        log = open(self.tmp / f"{name}.log", "wb")  # noqa: SIM115 (lives as long as the process)
        proc = subprocess.Popen(args, cwd=ROOT, env={**self.env, **(env or {})}, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        return proc

    def start_worker(self, workers: int = 2) -> None:
        self.spawn([sys.executable, "manage.py", "qcluster"], "worker", {"HIPJUDGE_Q_WORKERS": str(workers),
                                                                         "HIPJUDGE_LOG_LEVEL": "INFO"})
        deadline = time.monotonic() + 60
        while "running." not in (self.tmp / "worker.log").read_text(errors="replace"):
            if time.monotonic() > deadline:
                raise RuntimeError("qcluster did not start: " + (self.tmp / "worker.log").read_text()[-2000:])
            time.sleep(0.2)

    def start_web(self, workers: int = 1, extra_args: list[str] | None = None, server: str = "uvicorn") -> str:
        """uvicorn serving config.asgi, or with server="core.webserver" the production server (which
        takes no uvicorn options)."""
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        target = ["config.asgi:application"] if server == "uvicorn" else []
        self.web_command = [sys.executable, "-m", server, *target, "--host", "127.0.0.1",
                            "--port", str(port), "--no-access-log", "--workers", str(workers), *(extra_args or [])]
        self.web = self.spawn(self.web_command, "web")
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v1/schema", timeout=2):  # noqa: S310
                    return url
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def close(self) -> None:
        for proc in self.procs:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        try:
            from fleets.services import vms_stop_all

            vms_stop_all()
        except Exception as exc:  # the report matters more than the clean-up
            print(f"(clean-up: {exc})", file=sys.stderr)
        if self.pg_db:
            from django.db import connections

            connections.close_all()
            self._pg(f'DROP DATABASE IF EXISTS "{self.pg_db}" WITH (FORCE)')


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of one process (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """CPU of a process and its children (uvicorn's supervisor and its workers)."""
    try:
        children = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        children = []
    return _cpu_seconds(pid) + sum(_cpu_seconds(c) for c in children)


def pg_backends_cpu_seconds(database: str) -> float:
    """CPU of the PostgreSQL processes serving one database (its backends, autovacuum included)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if database.encode() not in (entry / "cmdline").read_bytes():
                    continue
            except OSError:
                continue
            total += _cpu_seconds(int(entry.name))
    return total


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def row(name: str, values_ms: list[float]) -> str:
    return (f"  {name:<34} {pct(values_ms, 50):9.1f} {pct(values_ms, 95):9.1f} {max(values_ms):9.1f} "
            f"{statistics.fmean(values_ms):9.1f}")


def header() -> str:
    return f"  {'':<34} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9} {'mean ms':>9}"


def quiet(*_: Any) -> None:
    pass

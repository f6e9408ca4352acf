"""Real processes around the test database: `manage.py qcluster` workers, a uvicorn web server,
and (through the local pool) real agent processes.

Every test here uses a committed database (transactional), so the subprocesses see its rows; they
connect to the test database through DATABASE_URL and share the test process's SECRET_KEY (task
signing), broker (ORM or REDIS_URL) and agent root. Every wait is bounded; every process started
here is stopped at teardown, before the database is flushed.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection

from tests.conftest import ROOT

WORKER_START_SECONDS = 60.0
WEB_START_SECONDS = 30.0


def database_url() -> str:
    s = connection.settings_dict
    if s["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{Path(s['NAME']).resolve()}"
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def pids_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in cmdline:
                found.append(int(entry.name))
    return found


def process_running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@dataclass
class Stack:
    base: Path
    env: dict[str, str]
    procs: list[Proc] = field(default_factory=list)
    webs: dict[int, Proc] = field(default_factory=dict)  # port -> the web process serving it

    @property
    def agent_root(self) -> Path:
        return Path(self.env["HIPJUDGE_LOCAL_AGENT_ROOT"])

    def _spawn(self, name: str, args: list[str], extra_env: dict[str, str] | None = None) -> Proc:
        log = self.base / f"{name}-{len(self.procs)}.log"
        with open(log, "wb") as handle:
            popen = subprocess.Popen(args, cwd=ROOT, env={**self.env, **(extra_env or {})}, stdin=subprocess.DEVNULL,
                                     stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
        proc = Proc(name, popen, log)
        self.procs.append(proc)
        return proc

    def start_worker(self, workers: int = 2) -> Proc:
        # --skip-checks: Django's system checks load the whole URLconf (every view, the schema
        # generator), CPU paid at each of the run's few dozen cluster starts; they run once, in
        # tests/core/test_system_checks.py, on the same code and settings.
        proc = self._spawn("worker", [sys.executable, "manage.py", "qcluster", "--skip-checks"],
                           {"HIPJUDGE_Q_WORKERS": str(workers)})
        wait_for(lambda: "running." in proc.output() or proc.popen.poll() is not None, WORKER_START_SECONDS,
                 "the qcluster worker to start")
        assert proc.popen.poll() is None, proc.output()
        return proc

    def start_web(self, port: int | None = None, probe: str = "/healthz") -> str:
        """A uvicorn on a free port (or on `port` again, after it was killed); returns its URL once
        `probe` answers 200. Not the schema by default: building it is 0.4 s of the web process's CPU,
        which most tests never ask for."""
        port = port or free_port()
        # The production server: uvicorn with the header timeout of core.webserver (scripts/serve.sh web).
        proc = self._spawn("web", [sys.executable, "-m", "core.webserver", "--host", "127.0.0.1",
                                   "--port", str(port), "--no-access-log", "--timeout-graceful-shutdown", "2"])
        self.webs[port] = proc
        url = f"http://127.0.0.1:{port}"

        def answers() -> bool:
            if proc.popen.poll() is not None:
                raise AssertionError(f"uvicorn exited:\n{proc.output()}")
            try:
                with urllib.request.urlopen(f"{url}{probe}", timeout=2) as response:  # noqa: S310
                    return response.status == 200
            except OSError:
                return False

        wait_for(answers, WEB_START_SECONDS, "uvicorn to answer", interval=0.2)
        return url

    def kill(self, proc: Proc, sig: int = signal.SIGKILL) -> None:
        try:
            os.killpg(proc.popen.pid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.popen.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.popen.pid, signal.SIGKILL)
            proc.popen.wait(timeout=5)

    def stop_all(self) -> None:
        for proc in reversed(self.procs):
            if proc.popen.poll() is None:
                # SIGTERM to the main process only (a group-wide one can hang django-q2's shutdown),
                # then whatever is left of the group goes.
                proc.popen.send_signal(signal.SIGTERM)
                try:
                    proc.popen.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
                try:
                    os.killpg(proc.popen.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.popen.wait(timeout=10)
        # Agents run in their own sessions on purpose (they outlive workers): stop them by folder.
        for pid in pids_with(str(self.agent_root)):
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


@pytest.fixture
def stack(transactional_db: Any, settings: Any, tmp_path: Path) -> Iterator[Stack]:
    agent_root = tmp_path / "agents"
    settings.HIPJUDGE_LOCAL_AGENT_ROOT = agent_root
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update({
        "DATABASE_URL": database_url(),
        "DJANGO_SECRET_KEY": django_settings.SECRET_KEY,
        "HIPJUDGE_VAR_DIR": str(tmp_path / "var"),
        "HIPJUDGE_LOCAL_AGENT_ROOT": str(agent_root),
        "HIPJUDGE_Q_NAME": django_settings.Q_CLUSTER["name"],
        "HIPJUDGE_POLL_LEASE": "4",
        "HIPJUDGE_SSE_HEARTBEAT": "1",
        "HIPJUDGE_SSE_POLL": "0.1",
        "HIPJUDGE_LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
    })
    running = Stack(base=tmp_path, env=env)
    try:
        yield running
    finally:
        running.stop_all()


@pytest.fixture
def judging_pool(local_pool: Any) -> Any:
    """The local pool, with the sandbox switched off only where bubblewrap is missing."""
    import shutil

    if shutil.which("bwrap") is None:
        local_pool.config = {"insecure_no_sandbox": True}
        local_pool.save()
    return local_pool


@pytest.fixture
def emulating_pool(stack: Stack, judging_pool: Any) -> Any:
    """The local pool, where the real agent checks hip and cuda on its emulated device. The agent
    builds the emulator with g++: only a machine without g++ skips these tests; anywhere else an
    agent that does not report both languages in /v1/health fails them."""
    import shutil

    from fleets.backends.local import local_agent_health

    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed: the agent cannot build its emulated device here")
    reported = local_agent_health(pool=judging_pool).get("emulated")
    assert isinstance(reported, list), f"`python -m agent health` reports emulated={reported!r}, not hip and cuda"
    assert {"hip", "cuda"} <= set(reported), f"`python -m agent health` reports emulated={reported!r}, not hip and cuda"
    return judging_pool

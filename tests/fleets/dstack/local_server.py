"""Start and stop a real `dstack server` on 127.0.0.1 for tests (importable outside pytest too).

The server gets a fresh HOME (so a fresh SQLite database, project `main`, no backends), the admin
token through DSTACK_SERVER_ADMIN_TOKEN, and a log file. With a template folder (shared by the
servers of one test session), only the first server creates its database (most of a
fresh server's start-up CPU is the migrations). Its state right after start-up (the database, copied
with SQLite's backup API while the server runs, and the server's config) and its token go to the template, and later
servers start from a copy of them, for a fraction of the CPU. The token comes with the copy: the server
reads DSTACK_SERVER_ADMIN_TOKEN only when it creates the admin user. It must never reach the internet:
- `dstack` (the CLI) checks get.dstack.ai for updates once a day per HOME: a fresh `last_check`
  file makes it skip that;
- the server preloads the gpuhunt offer catalog from S3 every 10 minutes: GPUHUNT_CATALOG_URL
  points it at a closed local port;
- any other outgoing HTTP(S) goes to a proxy on a closed local port (NO_PROXY keeps 127.0.0.1).
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from fleets.dstack import DstackClient, DstackSettings

# A fresh server spends its start-up CPU on its imports, then its database. A clean clone's make test
# starts it from source (no bytecode yet) while a dozen other processes share the cores, where it has
# taken minutes (docs/benchmarks.md). Waiting costs little; giving up loses the dstack tests.
STARTUP_TIMEOUT_S = 270.0
# A port nothing listens on (discard): outgoing requests fail at once, locally.
_DEAD_END = "http://127.0.0.1:9"


class DstackUnavailable(RuntimeError):
    """The server could not be started here (missing executable, crash, no readiness in time)."""


class DstackNotInstalled(DstackUnavailable):
    """There is no `dstack` executable: nothing to start."""


@dataclass
class LocalDstack:
    url: str
    token: str = field(repr=False)
    project: str
    home: Path
    log_path: Path
    process: subprocess.Popen[bytes] = field(repr=False)
    background_processing: bool

    def settings(self, **overrides: Any) -> DstackSettings:
        values: dict[str, Any] = {
            "server_url": self.url,
            "token": self.token,
            "project": self.project,
            "timeout_s": 20.0,
            "connect_retries": 2,
            "backoff_s": 0.2,
        }
        values.update(overrides)
        return DstackSettings(**values)

    def client(self, **overrides: Any) -> DstackClient:
        return DstackClient(self.settings(**overrides))

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, timeout_s: float = 20.0) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def dstack_executable() -> str | None:
    beside_python = Path(sys.executable).with_name("dstack")
    if beside_python.exists():
        return str(beside_python)
    return shutil.which("dstack")


def server_env(home: Path, token: str, *, background_processing: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DSTACK_", "GPUHUNT_"))}
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        env.pop(name, None)
        env.pop(name.upper(), None)
    env.update(
        HOME=str(home),
        DSTACK_SERVER_ADMIN_TOKEN=token,
        DSTACK_SERVER_LOG_FORMAT="standard",
        DSTACK_SERVER_LOG_LEVEL="INFO",
        GPUHUNT_CATALOG_URL=_DEAD_END,
        HTTP_PROXY=_DEAD_END,
        HTTPS_PROXY=_DEAD_END,
        NO_PROXY="127.0.0.1,localhost",
    )
    if not background_processing:
        # Runs then stay `submitted` forever: what a VM stuck in provisioning looks like.
        env["DSTACK_SERVER_BACKGROUND_PROCESSING_DISABLED"] = "1"
    return env


def start_local_dstack(
    base_dir: Path, *, background_processing: bool = True, startup_timeout_s: float = STARTUP_TIMEOUT_S,
    template: Path | None = None,
) -> LocalDstack:
    """A ready server in `base_dir`; with `template`, from the template's copy when it holds one,
    else the server's own state becomes the template (one server at a time creates it)."""
    if template is None:
        return _start(base_dir, secrets.token_hex(16), background_processing, startup_timeout_s)
    template.mkdir(parents=True, exist_ok=True)
    with open(template / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        token_file = template / "token"
        if token_file.exists():
            shutil.copytree(template / "server", _server_dir(base_dir / "home"))
            return _start(base_dir, token_file.read_text(), background_processing, startup_timeout_s)
        server = _start(base_dir, secrets.token_hex(16), background_processing, startup_timeout_s)
        try:
            _save_template(server, template)
        except (OSError, sqlite3.Error):
            pass  # no template: the next server creates its own database, as this one did
        return server


def _server_dir(home: Path) -> Path:
    return home / ".dstack" / "server"


def _save_template(server: LocalDstack, template: Path) -> None:
    source = _server_dir(server.home)
    target = template / "server"
    (target / "data").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source / "config.yml", target / "config.yml")
    with closing(sqlite3.connect(source / "data" / "sqlite.db")) as live, \
            closing(sqlite3.connect(target / "data" / "sqlite.db")) as copy:
        live.backup(copy)  # a consistent copy of a database the server is writing to
    (template / "token").write_text(server.token)  # last: a template without it is not used


def _start(base_dir: Path, token: str, background_processing: bool, startup_timeout_s: float) -> LocalDstack:
    executable = dstack_executable()
    if executable is None:
        raise DstackNotInstalled("the `dstack` executable is not installed (pip install 'dstack[server]')")
    home = base_dir / "home"
    # Pretend the CLI checked for updates today, so it does not call get.dstack.ai.
    for channel in ("cli", "stgn-cli"):
        stamp = home / ".cache" / ".dstack" / channel / "last_check"
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()
    port = free_port()
    log_path = base_dir / "dstack-server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [executable, "server", "--host", "127.0.0.1", "--port", str(port)],
            env=server_env(home, token, background_processing=background_processing),
            cwd=base_dir,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    server = LocalDstack(
        url=f"http://127.0.0.1:{port}",
        token=token,
        project="main",
        home=home,
        log_path=log_path,
        process=process,
        background_processing=background_processing,
    )
    try:
        _wait_ready(server, startup_timeout_s)
    except DstackUnavailable:
        server.stop()
        raise
    return server


def _wait_ready(server: LocalDstack, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    session = requests.Session()
    session.trust_env = False  # straight to 127.0.0.1, whatever proxy the test process has
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise DstackUnavailable(
                f"dstack server exited with {server.process.returncode}:\n{server.log_tail()}"
            )
        try:
            response = session.post(f"{server.url}/api/server/get_info", timeout=2)
            if response.status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.5)
    raise DstackUnavailable(f"dstack server not ready after {timeout_s:g} s:\n{server.log_tail()}")

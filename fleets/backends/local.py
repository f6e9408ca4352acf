"""The local backend: a VM is an agent process on 127.0.0.1 started by the orchestrator.

Each VM gets its own folder `<HIPJUDGE_LOCAL_AGENT_ROOT>/<pool>/vm-<id>/` (token file, log, agent
workdir). The process runs in a new session so it outlives the worker that started it (a worker
killed mid-job must not kill the job), and so its whole process group can be stopped at once.
The folder path in the agent's command line is how reconcile finds processes of VMs that no
longer exist, and how is_alive tells our agent from an unrelated process that reused its pid.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings

from fleets.agent_client import AgentClient, AgentError
from fleets.backends.base import Orphan, Provisioned, ProvisionError
from fleets.models import Pool, VMInstance
from fleets.policy import agent_silence_limit_s

log = logging.getLogger(__name__)

READY_RE = re.compile(r"agent listening on (http://127\.0\.0\.1:\d+)\n")
READY_FILE = "agent.stdout"
STOP_GRACE_SECONDS = 5.0
HEALTH_PROBE_TIMEOUT = 120.0  # the first probe (and a new agent's first /v1/health) may build the emulator's runtime
# A local pool's provisioning limit (the reaper fails a VM still starting after it): the agent may take
# HIPJUDGE_LOCAL_AGENT_START_TIMEOUT to report ready and HEALTH_PROBE_TIMEOUT to answer its first health
# check, and a runner killed meanwhile is resumed only once its lease lapsed and the next sweep ran (up
# to about 2 min). A shorter limit failed a killed worker's starting VM, and its job an attempt.
LOCAL_PROVISION_TIMEOUT_S = 300
# Only these reach the agent: it needs a toolchain, not the platform's database URL or secret key.
ENV_PASSTHROUGH = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "LD_LIBRARY_PATH",
                   "XDG_CACHE_HOME")
ENV_PREFIXES = ("ROCM", "HIP_", "HIPCC", "HSA_", "CUDA", "NVIDIA", "HIPJUDGE_AGENT_")
# The agents' own builds (agent.config.BUILD_DIR_ENV: the emulator's runtime, the eviction helper), shared by
# every local agent unless the environment names another folder: a local VM's first health check then
# need not compile the emulator again (a few seconds of both cores). Not a pool name: those never start
# with a dot.
BUILD_DIR_ENV = "HIPJUDGE_AGENT_BUILD_DIR"
SHARED_BUILDS = ".builds"

# Popen objects of agents this process started: polled so that exited agents do not stay zombies.
_children: dict[int, subprocess.Popen] = {}


def _read(path: Path, limit: int, *, tail: bool = False) -> str:
    """At most `limit` bytes of the file: its start, or its end."""
    try:
        with open(path, "rb") as handle:
            if tail:
                handle.seek(max(0, os.fstat(handle.fileno()).st_size - limit))
            return handle.read(limit).decode(errors="replace")
    except FileNotFoundError:
        return ""


def _pool_root(pool: Pool) -> Path:
    return Path(settings.HIPJUDGE_LOCAL_AGENT_ROOT) / pool.name


def vm_dir(vm: VMInstance) -> Path:
    return _pool_root(vm.pool) / f"vm-{vm.id}"


def _agent_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ENV_PASSTHROUGH or k.startswith(ENV_PREFIXES)}
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault(BUILD_DIR_ENV, str(Path(settings.HIPJUDGE_LOCAL_AGENT_ROOT) / SHARED_BUILDS))
    return env


def _reap_children() -> None:
    for pid, proc in list(_children.items()):
        if proc.poll() is not None:
            del _children[pid]


def _cmdline(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return None


def _is_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] in ("Z", "X")


def _pid_runs(pid: int, marker: str) -> bool:
    _reap_children()
    if Path("/proc").is_dir():
        cmdline = _cmdline(pid)
        return cmdline is not None and marker in cmdline and not _is_zombie(pid)
    try:  # no /proc (macOS): trust the pid
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _agent_pids_under(root: Path) -> dict[int, str]:
    """pid -> command line of every live agent whose folder is under `root` (Linux only)."""
    found: dict[int, str] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    needle = f"{root}{os.sep}vm-"
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        cmdline = _cmdline(int(entry.name))
        if cmdline and " serve " in cmdline and needle in cmdline and not _is_zombie(int(entry.name)):
            found[int(entry.name)] = cmdline
    return found


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass
    except PermissionError:
        log.warning("not allowed to signal process group %s", pid)


def _terminate(pid: int, marker: str) -> None:
    """SIGTERM the agent's group (it cancels its job and kills the sandbox), then SIGKILL."""
    if not _pid_runs(pid, marker):
        return
    _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    while time.monotonic() < deadline:
        if not _pid_runs(pid, marker):
            break
        time.sleep(0.05)
    _signal_group(pid, signal.SIGKILL)
    proc = _children.pop(pid, None)
    if proc is not None:
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            log.warning("agent %s did not exit after SIGKILL", pid)


class HealthProbeError(Exception):
    """The local agent could not say what it offers; the message says why."""


def local_agent_health(*, pool: Pool) -> dict[str, Any]:
    """What this pool's agents report in /v1/health, from `python -m agent health` run as a local VM's
    agent would run (same module, device, sandbox choice and environment), without starting a server.
    `make run` asks it which languages the agent checks on its emulated device."""
    folder = _pool_root(pool) / "health-probe"
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", settings.HIPJUDGE_LOCAL_AGENT_MODULE, "health",
               "--workdir", str(folder), "--device", pool.device]
    if pool.config.get("insecure_no_sandbox"):
        command.append("--insecure-no-sandbox")
    try:
        done = subprocess.run(command, cwd=settings.BASE_DIR, env=_agent_env(), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=HEALTH_PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HealthProbeError(f"the local agent did not answer ({exc})") from exc
    said = ((done.stderr.strip() or done.stdout.strip()).splitlines() or ["no output"])[-1]
    if done.returncode != 0:
        raise HealthProbeError(f"the local agent exited with {done.returncode}: {said}")
    try:
        health = json.loads(done.stdout)
    except ValueError:
        raise HealthProbeError(f"the local agent printed no health report: {said}") from None
    if not isinstance(health, dict):
        raise HealthProbeError("the local agent's health report is not a JSON object")
    return health


class LocalBackend:
    kind = "local"

    def agent_headers(self, vm: VMInstance) -> dict[str, str]:
        return {}

    def provision(self, vm: VMInstance) -> Provisioned:
        folder = vm_dir(vm)
        marker = str(folder)
        existing = [pid for pid in ([vm.pid] if vm.pid else []) if _pid_runs(pid, marker)]
        existing += [pid for pid in _agent_pids_under(folder.parent) if marker in (_cmdline(pid) or "")]
        if existing:  # a worker died while provisioning this VM: adopt the process it started
            pid = existing[0]
        else:
            pid = self._start(vm, folder)
        url = self._wait_ready(folder, pid, marker)
        try:
            info = AgentClient(url, vm.token, timeout=HEALTH_PROBE_TIMEOUT).health()
        except AgentError as exc:
            _terminate(pid, marker)
            raise ProvisionError(f"The local agent started but does not answer health checks ({exc}).") from exc
        return Provisioned(base_url=url, pid=pid, handle=str(folder), agent_info=info)

    def _start(self, vm: VMInstance, folder: Path) -> int:
        folder.mkdir(parents=True, exist_ok=True)
        token_file = folder / "token"
        fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(vm.token)
        command = [
            sys.executable, "-m", settings.HIPJUDGE_LOCAL_AGENT_MODULE, "serve",
            "--host", "127.0.0.1", "--port", "0",
            "--token-file", str(token_file),
            "--workdir", str(folder / "work"),
            "--device", vm.pool.device,
            # Nothing outlives its master: with its platform gone, the agent stops itself (agent.self_stop).
            "--stop-after-silence", str(agent_silence_limit_s(pool=vm.pool)),
        ]
        if vm.pool.config.get("insecure_no_sandbox"):
            command.append("--insecure-no-sandbox")
        # stdout carries only the ready line; the log (request lines included) goes to stderr.
        with open(folder / "agent.log", "ab") as log_file, open(folder / READY_FILE, "wb") as ready_file:
            try:
                proc = subprocess.Popen(
                    command, cwd=settings.BASE_DIR, env=_agent_env(), stdin=subprocess.DEVNULL,
                    stdout=ready_file, stderr=log_file, start_new_session=True,
                )
            except OSError as exc:
                raise ProvisionError(f"Could not start the local agent ({exc}).") from exc
        _children[proc.pid] = proc
        log.info("started local agent pid %s for VM %s", proc.pid, vm.id)
        return proc.pid

    def _wait_ready(self, folder: Path, pid: int, marker: str) -> str:
        """The agent's URL from the FIRST line of its stdout, which only the agent writes, and only
        once. Not from the log: the agent logs request lines, so anyone who can reach its port could
        plant a fake ready line there and have the token and jobs sent to a port of their own."""
        deadline = time.monotonic() + settings.HIPJUDGE_LOCAL_AGENT_START_TIMEOUT
        delay = 0.01
        while time.monotonic() < deadline:
            match = READY_RE.match(_read(folder / READY_FILE, 200))
            if match:
                return match.group(1)
            child = _children.get(pid)
            # Our own child: ask Popen (right after fork /proc still shows the parent's cmdline).
            alive = child.poll() is None if child is not None else _pid_runs(pid, marker)
            if not alive:
                said = _read(folder / READY_FILE, 4096) + "\n" + _read(folder / "agent.log", 4096, tail=True)
                tail = "\n".join(said.strip().splitlines()[-5:])
                raise ProvisionError(f"The local agent exited during start-up: {tail or 'no output'}")
            time.sleep(delay)
            delay = min(delay * 2, 0.2)
        _terminate(pid, marker)
        raise ProvisionError(
            f"The local agent did not report ready within {settings.HIPJUDGE_LOCAL_AGENT_START_TIMEOUT:.0f} s.")

    def is_alive(self, vm: VMInstance) -> bool:
        return bool(vm.pid) and _pid_runs(vm.pid or 0, str(vm_dir(vm)))

    def gone_reason(self, vm: VMInstance) -> str:
        return "The agent process is gone."

    def stop(self, vm: VMInstance) -> None:
        folder = vm_dir(vm)
        pids = set(_agent_pids_under(folder.parent)) if Path("/proc").is_dir() else set()
        pids = {p for p in pids if str(folder) in (_cmdline(p) or "")}
        if vm.pid:
            pids.add(vm.pid)
        for pid in pids:
            _terminate(pid, str(folder))
        # Keep the log for a post-mortem; the rest (compile cache, job files, token) goes.
        shutil.rmtree(folder / "work", ignore_errors=True)
        (folder / "token").unlink(missing_ok=True)

    def find_orphans(self, pool: Pool, live_vm_ids: set[str]) -> list[Orphan]:
        orphans = []
        for pid, cmdline in _agent_pids_under(_pool_root(pool)).items():
            match = re.search(r"vm-([0-9a-f-]{36})", cmdline)
            if match and match.group(1) not in live_vm_ids:
                orphans.append(Orphan(handle=str(pid), description=f"agent pid {pid} of VM {match.group(1)}"))
        return orphans

    def kill_orphan(self, pool: Pool, orphan: Orphan) -> None:
        pid = int(orphan.handle)
        _terminate(pid, f"{_pool_root(pool)}{os.sep}vm-")

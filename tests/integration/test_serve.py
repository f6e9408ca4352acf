"""scripts/serve.sh runs the layout: web and worker roles on PostgreSQL + Redis answer /readyz, a
worker cluster that dies is started again, SIGTERM stops everything, the local VMs of the worker's
host included."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from fleets.models import VMInstance, VMState
from fleets.services import vm_provision
from tests.conftest import ROOT
from tests.integration.conftest import Stack, free_port, pids_with, wait_for

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not (settings.IS_POSTGRES and settings.REDIS_URL),
                       reason="serve.sh is for PostgreSQL + Redis (make test's second pass sets both)"),
]


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            found.append(int(stat.parent.name))
    return found


def ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/readyz", timeout=3) as response:  # noqa: S310
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def test_serve_sh_runs_web_and_worker_processes_and_restarts_a_dead_cluster(stack: Stack, tmp_path: Any,
                                                                             judging_pool: Any) -> None:
    port = free_port()
    env = {**stack.env, "REDIS_URL": str(settings.REDIS_URL), "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
           "HIPJUDGE_HOST": "127.0.0.1", "HIPJUDGE_PORT": str(port), "HIPJUDGE_WEB_PROCESSES": "2",
           "HIPJUDGE_WORKER_CLUSTERS": "2", "HIPJUDGE_Q_WORKERS": "1", "HIPJUDGE_PYTHON": sys.executable}
    logs = {role: open(tmp_path / f"serve-{role}.log", "wb") for role in ("web", "worker")}  # noqa: SIM115
    procs = {role: subprocess.Popen(["bash", str(ROOT / "scripts/serve.sh"), role], cwd=ROOT, env=env,
                                    stdout=logs[role], stderr=subprocess.STDOUT, start_new_session=True)
             for role in ("worker", "web")}
    try:
        wait_for(lambda: len(children(procs["worker"].pid)) == 2, 60, "two qcluster processes")
        wait_for(lambda: ready(f"http://127.0.0.1:{port}"), 120, "/readyz 200 from serve.sh web")
        first = children(procs["worker"].pid)[0]
        os.killpg(first, signal.SIGKILL)
        wait_for(lambda: first not in children(procs["worker"].pid) and len(children(procs["worker"].pid)) == 2, 60,
                 "serve.sh to start the dead cluster again")
        # A local VM this host's workers serve (issue 32: stopping the workers left the agents running,
        # idle, their time billed to the last users): it goes with them.
        vm = vm_provision(vm=VMInstance.objects.create(pool=judging_pool, state=VMState.PROVISIONING,
                                                      token="serve-test-token"))
        assert vm.state == VMState.WARM
        assert pids_with(str(stack.agent_root))
        for role in ("web", "worker"):
            procs[role].send_signal(signal.SIGTERM)
            assert procs[role].wait(timeout=90) == 0, (tmp_path / f"serve-{role}.log").read_text()[-3000:]
        vm.refresh_from_db()
        assert vm.state == VMState.STOPPED
        assert vm.state_reason == "Stopped with the workers of its host."
        wait_for(lambda: not pids_with(str(stack.agent_root)), 15, "the VM's agent process to exit")
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        for handle in logs.values():
            handle.close()

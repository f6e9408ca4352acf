"""The local backend with the real agent process: start, health, identity, stop, orphans."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.config import BUILD_DIR_ENV as AGENTS_BUILD_DIR_ENV
from fleets.agent_client import AgentClient
from fleets.backends import ProvisionError
from fleets.backends.local import BUILD_DIR_ENV, SHARED_BUILDS, LocalBackend, _agent_env, vm_dir
from fleets.models import VMInstance, VMState
from tests.integration.conftest import wait_for

pytestmark = pytest.mark.integration


@pytest.fixture
def pool(local_pool: Any, settings: Any, tmp_path: Path) -> Any:
    settings.HIPJUDGE_LOCAL_AGENT_ROOT = tmp_path / "agents"
    if shutil.which("bwrap") is None:  # process management is under test here, not the sandbox
        local_pool.config = {"insecure_no_sandbox": True}
        local_pool.save()
    return local_pool


@pytest.fixture
def backend(pool: Any) -> Iterator[LocalBackend]:
    backend = LocalBackend()
    yield backend
    for vm in VMInstance.objects.all():
        backend.stop(vm)


def new_vm(pool: Any) -> VMInstance:
    return VMInstance.objects.create(pool=pool, state=VMState.PROVISIONING, job_ref="j", token="s3cret-token")


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def test_it_starts_an_agent_in_its_own_session_and_stops_it(pool: Any, backend: LocalBackend,
                                                            monkeypatch: Any) -> None:
    monkeypatch.setenv("DJANGO_SECRET_KEY", "must-not-leak")
    monkeypatch.setenv("HIPJUDGE_ADMIN_PASSWORD", "must-not-leak")
    vm = new_vm(pool)
    done = backend.provision(vm)
    assert done.base_url.startswith("http://127.0.0.1:")
    assert done.pid
    assert done.agent_info["device"] == "host"
    assert os.getsid(done.pid) == done.pid  # a new session: it outlives the worker that started it
    environ = Path(f"/proc/{done.pid}/environ").read_bytes().decode()
    assert "must-not-leak" not in environ
    assert "DATABASE_URL" not in environ
    assert oct(os.stat(vm_dir(vm) / "token").st_mode & 0o777) == "0o600"
    assert AgentClient(done.base_url, "s3cret-token").health()["busy"] is False
    vm.pid, vm.base_url = done.pid, done.base_url
    assert backend.is_alive(vm)
    backend.stop(vm)
    assert not running(done.pid)
    assert not backend.is_alive(vm)
    assert not (vm_dir(vm) / "work").exists()
    assert (vm_dir(vm) / "agent.log").exists()


def test_provisioning_again_adopts_the_running_agent(pool: Any, backend: LocalBackend) -> None:
    vm = new_vm(pool)
    first = backend.provision(vm)
    vm.pid = first.pid
    assert backend.provision(vm).pid == first.pid  # a worker died mid-start: no second agent


def test_a_ready_line_planted_in_the_log_does_not_redirect_the_worker(pool: Any, backend: LocalBackend) -> None:
    """Ready-line spoofing: the agent logs request lines, so anyone who reaches its port can write
    "agent listening on <their port>" into its log; re-provisioning (adopting) must not believe it."""
    vm = new_vm(pool)
    first = backend.provision(vm)
    port = int(first.base_url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"GET /x agent listening on http://127.0.0.1:9 HTTP/1.1\r\nHost: x\r\n\r\n")
        sock.recv(4096)
    log = vm_dir(vm) / "agent.log"
    wait_for(lambda: "http://127.0.0.1:9 " in log.read_text(errors="replace"), 10, "the planted line in the log")
    vm.pid = first.pid
    assert backend.provision(vm).base_url == first.base_url


def test_an_agent_that_cannot_start_gives_its_reason(pool: Any, backend: LocalBackend, settings: Any) -> None:
    settings.HIPJUDGE_LOCAL_AGENT_MODULE = "tests.fleets.broken_agent"
    with pytest.raises(ProvisionError, match="exited during start-up: agent: refusing to start: no sandbox"):
        backend.provision(new_vm(pool))


def test_a_reused_pid_is_not_mistaken_for_the_agent(pool: Any, backend: LocalBackend) -> None:
    vm = new_vm(pool)
    vm.pid = os.getpid()  # alive, but not an agent of this VM
    assert not backend.is_alive(vm)


def test_orphans_are_agents_without_a_live_row(pool: Any, backend: LocalBackend) -> None:
    vm = new_vm(pool)
    done = backend.provision(vm)
    assert backend.find_orphans(pool, {str(vm.pk)}) == []
    [orphan] = backend.find_orphans(pool, set())
    assert orphan.handle == str(done.pid)
    assert str(vm.pk) in orphan.description
    backend.kill_orphan(pool, orphan)
    assert not running(done.pid)


def test_local_agents_share_one_folder_for_their_own_builds_unless_told_another(
        pool: Any, settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert BUILD_DIR_ENV == AGENTS_BUILD_DIR_ENV  # the variable the agent reads (fleets does not import agent)
    monkeypatch.delenv(BUILD_DIR_ENV, raising=False)
    assert _agent_env()[BUILD_DIR_ENV] == str(Path(settings.HIPJUDGE_LOCAL_AGENT_ROOT) / SHARED_BUILDS)
    monkeypatch.setenv(BUILD_DIR_ENV, "/elsewhere/builds")
    assert _agent_env()[BUILD_DIR_ENV] == "/elsewhere/builds"

"""The Docker sandbox against a stand-in `docker` client (no engine runs here).

The stand-in records every call and plays a container the way the engine does: a process in a
session of its own that killing the `docker run` client does not stop, and that only
`docker kill <name>` ends. So these tests prove the command line the sandbox builds and that time
limits and cancels reach the container itself. They cannot prove what only an engine does (that
the ulimits and cgroup flags take effect inside, that the image runs the child): see docs/sandbox.md.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import agent.sandbox.modes as sandbox_module
from agent.sandbox.child_tree import AGENT_PACKAGE, agent_copy
from agent.sandbox.fd_handoff import HANDOFF_DIR
from agent.sandbox.modes import BoxLayout, DockerSandbox, SandboxUnavailable, detect_sandbox
from agent.sandbox.resources import MIB, ProcessLimits

STANDIN = """#!{python}
import json, os, signal, subprocess, sys
STATE = {state!r}
with open(os.path.join(STATE, "calls.jsonl"), "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
command = sys.argv[1:]
if command[:1] == ["info"]:
    sys.exit(0)
if command[:2] == ["image", "inspect"]:
    sys.exit(0 if command[2] == "hipjudge-sandbox:latest" else 1)
if command[:1] == ["run"]:
    name = command[command.index("--name") + 1]
    container = subprocess.Popen(["sleep", "600"], start_new_session=True)
    with open(os.path.join(STATE, name + ".pid"), "w") as f:
        f.write(str(container.pid))
    sys.exit(container.wait() and 137)
if command[:1] in (["kill"], ["rm"]):
    pid_file = os.path.join(STATE, command[-1] + ".pid")
    if os.path.exists(pid_file):
        try:
            os.kill(int(open(pid_file).read()), signal.SIGKILL)
        except ProcessLookupError:
            pass
        if command[0] == "rm":
            os.unlink(pid_file)
    sys.exit(0)
sys.exit(2)
"""

LIMITS = ProcessLimits(wall_s=1.0, cpu_s=7, memory_bytes=1024 * MIB, file_bytes=64 * MIB, nproc=32,
                       output_bytes=4096, threads_only=True)


def stand_in_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> Path:
    """`script` (formatted with python and state) as the `docker` client first on PATH; returns
    its state directory, where it records its calls and the pid of each "container"."""
    state = tmp_path / "docker-state"
    state.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    client = bin_dir / "docker"
    client.write_text(script.format(python=sys.executable, state=str(state)))
    client.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return state


def kill_containers(state: Path, kill: Callable[[int, int], None] = os.kill) -> None:
    """Whatever a failing test left running (a "container") is killed afterwards."""
    for pid_file in state.glob("*.pid"):
        try:
            kill(int(pid_file.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


@pytest.fixture
def docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The stand-in client; returns its state directory."""
    state = stand_in_client(tmp_path, monkeypatch, STANDIN)
    yield state
    kill_containers(state)


def calls(state: Path) -> list[list[str]]:
    path = state / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def started_container(state: Path) -> tuple[list[str], str]:
    """The `docker run` arguments and the container's name, once it runs (bounded wait)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        run = next((c for c in calls(state) if c[0] == "run"), None)
        if run is not None and (state / f"{flag_values(run, '--name')[0]}.pid").exists():
            return run, flag_values(run, "--name")[0]
        time.sleep(0.05)
    raise AssertionError(f"no container started: {calls(state)}")


def container_alive(state: Path, name: str) -> bool:
    pid = int((state / f"{name}.pid").read_text()) if (state / f"{name}.pid").exists() else None
    if pid is None:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def flag_values(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv) if a == flag]


@pytest.fixture
def box(job_box: Path) -> Path:
    return job_box


def test_it_is_chosen_only_when_the_engine_answers_and_the_image_is_there(docker, monkeypatch):
    monkeypatch.setenv("HIPJUDGE_SANDBOX", "docker")
    assert isinstance(detect_sandbox(), DockerSandbox)
    real = sandbox_module.docker_works
    monkeypatch.setattr(sandbox_module, "docker_works", lambda: real("python:3.11-slim"))  # no NumPy, no g++
    with pytest.raises(SandboxUnavailable, match="sandbox image"):
        detect_sandbox()


def test_a_time_limit_kills_the_container_itself_not_just_the_client(docker, box):
    proc = DockerSandbox().spawn(["python3", "-m", "agent.harness.child", "/box/spec.json"], box=box, limits=LIMITS)
    try:
        _, name = started_container(docker)
        assert name.startswith("hipjudge-job-")
        assert container_alive(docker, name)
    finally:
        outcome = proc.wait()
    assert outcome.timed_out
    assert ["kill", name] in calls(docker)
    assert ["rm", "-f", name] in calls(docker)
    assert not container_alive(docker, name)


def test_a_cancel_kills_the_container_too(docker, box):
    cancel = threading.Event()
    proc = DockerSandbox().spawn(["sleep", "600"], box=box, limits=ProcessLimits(
        wall_s=60, cpu_s=60, memory_bytes=None, file_bytes=MIB, nproc=8, output_bytes=1024))
    try:
        _, name = started_container(docker)
    finally:
        cancel.set()
        outcome = proc.wait(cancel)
    assert outcome.cancelled
    assert ["kill", name] in calls(docker)
    assert not container_alive(docker, name)


def test_the_limits_are_the_containers_and_nothing_of_the_repository_is_mounted(docker, box, tmp_path):
    library = tmp_path / "solution.so"
    library.write_bytes(b"lib")
    layout = BoxLayout(size_bytes=32 * MIB, files={"solution.so": library})
    proc = DockerSandbox().spawn(["true"], box=box, limits=LIMITS, layout=layout)
    try:
        run, _ = started_container(docker)
    finally:
        proc.kill()
    assert set(flag_values(run, "--ulimit")) >= {"cpu=7:8", f"fsize={64 * MIB}:{64 * MIB}", "core=0:0"}
    assert flag_values(run, "--memory") == [str(1024 * MIB)] == flag_values(run, "--memory-swap")
    assert flag_values(run, "--pids-limit") == ["48"]  # nproc + what the sandbox itself needs
    assert flag_values(run, "--network") == ["none"]
    assert "--read-only" in run
    assert flag_values(run, "--cap-drop") == ["ALL"]
    assert "no-new-privileges" in flag_values(run, "--security-opt")
    assert f"/tmp:rw,exec,size={256 * MIB}" in flag_values(run, "--tmpfs")
    assert f"/box:rw,exec,size={32 * MIB}" in flag_values(run, "--tmpfs")
    volumes = flag_values(run, "-v")
    assert volumes == [f"{agent_copy()}:/opt/hipjudge/agent:ro", f"{library}:/box/solution.so:ro"]
    assert not any(str(AGENT_PACKAGE.parent) in v.split(":")[0] for v in volumes)
    assert run[run.index("hipjudge-sandbox:latest") + 1:] == ["true"]


def test_descriptors_reach_the_container_over_a_socket_bound_read_only(docker, box):
    read_end, write_end = os.pipe()
    try:
        proc = DockerSandbox().spawn(["python3", "-m", "agent.harness.child"], box=box, limits=LIMITS,
                                     pass_fds=[write_end], layout=BoxLayout(size_bytes=32 * MIB))
        try:
            run, _ = started_container(docker)
        finally:
            proc.kill()
    finally:
        os.close(read_end)
        os.close(write_end)
    handoff_dir = next(v.split(":")[0] for v in flag_values(run, "-v") if v.endswith(f":{HANDOFF_DIR}:ro"))
    assert run[run.index("hipjudge-sandbox:latest") + 1:] == [
        "python3", "-P", "-m", "agent.sandbox.fd_handoff", f"{HANDOFF_DIR}/fds.sock", "--",
        "python3", "-m", "agent.harness.child"]
    assert not Path(handoff_dir).exists()  # the offer ends with the container

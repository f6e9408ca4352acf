"""The judge's descriptors under the Docker sandbox: the handoff socket (agent.sandbox.fd_handoff) for real,
and whole jobs judged through DockerSandbox's own command line by a stand-in engine.

No Docker engine runs here. The stand-in `docker` client below plays one closely enough for what
these tests prove: it runs the container's command in a fresh bubblewrap root holding exactly the
mounts `docker run` names (`-v`, `--tmpfs`), its working directory and environment, with no
network, as a process of its own session that `docker kill <name>` ends. So the command line the
sandbox builds (python3 of the image, PYTHONPATH, the agent's copy, the private /box, the handoff
socket and its wrapper) is what really runs the judge's child here. What only an engine does (the
image, cgroup and ulimit flags, Docker's seccomp profile) stays unproven: see docs/sandbox.md.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent.config import AgentConfig, build_config
from agent.sandbox.fd_handoff import HANDOFF_DIR, FdHandoff
from agent.sandbox.modes import DockerSandbox, detect_sandbox
from tests.agent.conftest import ROOT, job_dir_name, load_problem, run_job, wait_until_no_process_mentions
from tests.agent.test_docker_sandbox import kill_containers, stand_in_client

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

# The receiving side: every descriptor at its number, the memfd's bytes intact; answers on the socket.
RECEIVER = """
import os, socket, sys
memfd, sock = int(sys.argv[1]), int(sys.argv[2])
text = os.pread(memfd, 64, 0)
socket.socket(fileno=sock).sendall(b"got " + text)
"""

# Another user of the machine who found the socket: connects and takes what it is given.
INTRUDER = """
import os, socket, sys
conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
conn.connect(sys.argv[1])
data, fds, _, _ = socket.recv_fds(conn, 1024, 16)
print(os.getuid(), len(fds))
"""

ENGINE = """#!{python}
import json, os, subprocess, sys
STATE = {state!r}
with open(os.path.join(STATE, "calls.jsonl"), "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
command = sys.argv[1:]
if command[:1] == ["info"] or command[:2] == ["image", "inspect"]:
    sys.exit(0)
if command[:1] in (["kill"], ["rm"]):
    pid_file = os.path.join(STATE, command[-1] + ".pid")
    if os.path.exists(pid_file):
        try:
            os.killpg(int(open(pid_file).read()), 9)
        except ProcessLookupError:
            pass
    sys.exit(0)
if command[:1] != ["run"]:
    sys.exit(2)
VALUED = {{"--name", "--network", "--tmpfs", "--cap-drop", "--security-opt", "--memory", "--memory-swap",
          "--cpus", "--pids-limit", "--ulimit", "-v", "-w", "-e", "--device", "--group-add", "--gpus"}}
args, i, opts = command[1:], 0, []
while args[i].startswith("-"):
    if args[i] in VALUED:
        opts.append((args[i], args[i + 1]))
        i += 2
    else:
        i += 1
argv = args[i + 1:]  # after the image
root = ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        "--proc", "/proc", "--dev", "/dev"]
for flag, value in opts:
    if flag == "--tmpfs":
        root += ["--tmpfs", value.split(":")[0]]
for flag, value in opts:
    if flag == "-v":
        source, target, mode = value.split(":")
        root += ["--ro-bind" if mode == "ro" else "--bind", source, target]
    elif flag == "-w":
        root += ["--chdir", value]
root += ["--clearenv"]
for flag, value in opts:
    if flag == "-e":
        key, _, val = value.partition("=")
        root += ["--setenv", key, val]
container = subprocess.Popen([*root, "--", *argv], start_new_session=True)
with open(os.path.join(STATE, dict(opts)["--name"] + ".pid"), "w") as f:
    f.write(str(container.pid))
code = container.wait()
sys.exit(code if code >= 0 else 128 - code)
"""


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    state = stand_in_client(tmp_path, monkeypatch, ENGINE)
    yield state
    kill_containers(state, os.killpg)  # the engine's containers are sessions of their own


@pytest.fixture
def docker_config(engine: Path, tmp_path: Path) -> AgentConfig:
    try:
        detect_sandbox(preferred="bwrap")  # the stand-in engine runs its containers in bubblewrap
    except Exception as exc:  # noqa: BLE001 - any reason bwrap is unusable skips these tests
        pytest.skip(f"bubblewrap is not usable here: {exc}")
    config = build_config(workdir=tmp_path / "agent", device="host", allow_insecure=True)
    config.sandbox = DockerSandbox()
    return config


@contextmanager
def offered(text: bytes) -> Iterator[tuple[FdHandoff, str, socket.socket]]:
    """A handoff of a sealed memfd holding `text` and one end of a socket pair, as the harness
    makes one (it closes its own descriptors once the process started: the handoff holds copies);
    yields it, its socket's path and the other end of the pair."""
    memfd = os.memfd_create("handoff-test", os.MFD_ALLOW_SEALING)
    os.write(memfd, text)
    fcntl.fcntl(memfd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
    parent_end, child_end = socket.socketpair()
    parent_end.settimeout(30)
    handoff = FdHandoff([memfd, child_end.fileno()])
    os.close(memfd)
    child_end.close()
    try:
        yield handoff, str(handoff.directory / "fds.sock"), parent_end
    finally:
        handoff.close()
        parent_end.close()


def receive(path: str, handoff: FdHandoff) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agent.sandbox.fd_handoff", path, "--", sys.executable, "-c", RECEIVER,
                           *map(str, handoff.numbers)], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          close_fds=True)


def test_the_descriptors_arrive_under_their_numbers_and_the_offer_is_taken_once():
    with offered(b"sealed library bytes") as (handoff, path, parent_end):
        done = receive(path, handoff)
        assert done.returncode == 0, done.stderr
        assert parent_end.recv(64) == b"got sealed library bytes"
        again = subprocess.run([sys.executable, "-m", "agent.sandbox.fd_handoff", path, "--", "true"], cwd=ROOT,
                               capture_output=True, text=True, timeout=60)
        assert again.returncode == 3
        assert "did not arrive" in again.stderr  # the socket is gone
    assert not handoff.directory.exists()


@pytest.mark.skipif(os.geteuid() != 0 or not os.access("/usr/bin/python3", os.X_OK),
                    reason="needs root to connect as another user, and the system's python3")
def test_another_user_of_the_machine_gets_nothing_and_the_container_still_does():
    with offered(b"inputs") as (handoff, path, parent_end):
        # The system's python: the checkout need not be readable by that user.
        intruder = subprocess.run(["/usr/bin/python3", "-c", INTRUDER, path], capture_output=True, text=True,
                                  timeout=60, user=65534, group=65534, cwd="/")
        assert intruder.returncode == 0, intruder.stderr
        assert intruder.stdout.split() == ["65534", "0"], intruder.stderr
        done = receive(path, handoff)
        assert done.returncode == 0, done.stderr
        assert parent_end.recv(64) == b"got inputs"


@pytest.mark.parametrize(("language", "device", "mode"), [("cpp", "host", "check"), ("hip", "emulated", "check"),
                                                          ("cpp", "host", "benchmark")])
def test_a_job_is_judged_through_the_docker_sandboxs_command_line(docker_config: AgentConfig, engine: Path,
                                                                 language: str, device: str, mode: str):
    """A benchmark too: its timed calls pause the container's process, the peer the descriptor
    handoff saw (the `docker run` client is not the container)."""
    suffix = {"cpp": "cpp.cpp", "hip": "hip.hip"}[language]
    source = (ROOT / "problems" / "vector-add" / "solutions" / suffix).read_text()
    job_id = f"docker-{uuid.uuid4().hex}"
    result, _ = run_job(load_problem("vector-add"), source, language, mode, {"case_budget_s": 0.2},
                        config=docker_config, job_id=job_id)
    assert result["status"] == ("CHECKED" if mode == "check" else "ACCEPTED"), result
    assert result["summary"]["device"] == device
    calls = [json.loads(line) for line in (engine / "calls.jsonl").read_text().splitlines()]
    runs = [c for c in calls if c[0] == "run"]
    phases = 2 if mode == "check" else 3  # compile, tests (, benchmark)
    assert len(runs) == phases
    assert "agent.sandbox.fd_handoff" not in runs[0]
    assert "agent.sandbox.fd_handoff" in runs[1]
    volumes = [runs[1][i + 1] for i, a in enumerate(runs[1]) if a == "-v"]
    offered = [v.split(":")[0] for v in volumes if v.endswith(f":{HANDOFF_DIR}:ro")]
    assert len(offered) == 1
    assert not Path(offered[0]).exists()  # withdrawn with the container
    assert not wait_until_no_process_mentions(job_dir_name(job_id))

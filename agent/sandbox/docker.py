"""The Docker sandbox, for machines where an engine answers and bubblewrap does not.

Every container gets a name of its own, so that a time limit or a cancel stops the container
itself (`docker kill`, then `docker rm -f`): killing the `docker run` client, which is all a
process-group kill reaches, leaves the container running. The limits are the container's:
`--ulimit` for CPU time, file size and core dumps, `--memory`/`--memory-swap` and `--pids-limit`
for what cgroups enforce, sized tmpfs for /tmp and a private /box. Docker's default seccomp profile
refuses unshare, mount and the rest of the namespace calls to a container without CAP_SYS_ADMIN.
The judge's child gets its descriptors (control socket, shared memory, sealed libraries) through
agent.sandbox.fd_handoff: a socket bound read-only into the container, answered once.

The image must have python3 with NumPy (the harness's child) and the compilers the agent offers:
docker/sandbox.Dockerfile builds one for the host device (g++), docker/agent-rocm.Dockerfile is
the one for HIP on MI300X. HIPJUDGE_SANDBOX_IMAGE names it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from agent.sandbox.child_tree import agent_copy
from agent.sandbox.core import AGENT_ROOT, BOX, DEFAULT_RAM_BYTES, SANDBOX_TASKS, BoxLayout, Sandbox
from agent.sandbox.fd_handoff import HANDOFF_DIR, FdHandoff
from agent.sandbox.resources import ProcessLimits

DOCKER_IMAGE = os.environ.get("HIPJUDGE_SANDBOX_IMAGE", "hipjudge-sandbox:latest")
NAME_PREFIX = "hipjudge-job-"
_CLI_TIMEOUT_S = 20


class DockerSandbox(Sandbox):
    mode = "docker"
    secure = True
    mounts_box = True
    uses_cgroups = False
    python = "python3"  # the image's

    def __init__(self, hidden: Sequence[Path] = (), image: str | None = None) -> None:
        super().__init__(hidden)
        self.image = image or DOCKER_IMAGE
        # By its full path: the client runs with a minimal environment of its own.
        self.docker = shutil.which("docker") or "docker"

    def enforcement(self) -> dict[str, str]:
        return {"memory": "docker --memory (the container's cgroup)", "pids": "docker --pids-limit"}

    def hand_over(self, fds: Sequence[int]) -> FdHandoff | None:
        # A container inherits no descriptors from the client: they go over a socket instead.
        return FdHandoff(fds) if fds else None

    def command(self, argv: list[str], *, box: Path, device: str, env: dict[str, str], limits: ProcessLimits,
                layout: BoxLayout | None, handoff: FdHandoff | None) -> tuple[list[str], str, tuple[int, ...]]:
        name = f"{NAME_PREFIX}{uuid.uuid4().hex[:16]}"
        args = docker_run_args(box=box, device=device, limits=limits, layout=layout, name=name,
                               env={**env, "PYTHONPATH": AGENT_ROOT, "HIPJUDGE_BOX": BOX},
                               handoff=handoff)
        if handoff is not None:
            argv = [*handoff.command(self.python), *argv]
        return [self.docker, *args[1:], self.image, *argv], str(box), ()

    def on_kill(self, command: list[str]) -> Callable[[], None] | None:
        name = command[command.index("--name") + 1]
        return lambda: stop_container(name, docker=self.docker)


def stop_container(name: str, docker: str = "docker") -> None:
    """Kill and remove a container by name; quiet when it is gone already (--rm removed it)."""
    for cli in ([docker, "kill", name], [docker, "rm", "-f", name]):
        try:
            subprocess.run(cli, capture_output=True, timeout=_CLI_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue


def docker_run_args(*, box: Path, device: str, env: dict[str, str], limits: ProcessLimits,
                    layout: BoxLayout | None, name: str, handoff: FdHandoff | None = None) -> list[str]:
    """The `docker run` flags: isolation first, then the limits, then the mounts."""
    ram = limits.ram_cap(DEFAULT_RAM_BYTES)
    args = [
        "docker", "run", "--rm", "--name", name,
        "--network", "none",
        "--read-only", "--tmpfs", f"/tmp:rw,exec,size={limits.tmp_size(DEFAULT_RAM_BYTES)}",
        "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "--memory", str(ram), "--memory-swap", str(ram), "--cpus", "4",
        "--pids-limit", str(limits.nproc + SANDBOX_TASKS),
        "--ulimit", f"cpu={limits.cpu_s}:{limits.cpu_s + 1}",
        "--ulimit", f"fsize={limits.file_bytes}:{limits.file_bytes}",
        "--ulimit", "core=0:0",
        "-v", f"{agent_copy()}:{AGENT_ROOT}/agent:ro",
    ]
    if limits.memory_bytes is not None:
        args += ["--ulimit", f"data={limits.memory_bytes}:{limits.memory_bytes}"]
    if layout is None:
        args += ["-v", f"{box}:{BOX}:rw"]
    else:
        args += ["--tmpfs", f"{BOX}:rw,exec,size={layout.size_bytes}"]
        for entry, path, writable in layout.entries():
            args += ["-v", f"{path}:{BOX}/{entry}:{'rw' if writable else 'ro'}"]
    if handoff is not None:
        args += ["-v", f"{handoff.directory}:{HANDOFF_DIR}:ro"]
    args += ["-w", BOX]
    if device == "hip":
        args += ["--device", "/dev/kfd", "--device", "/dev/dri", "--group-add", "video"]
    elif device == "cuda":
        args += ["--gpus", "all"]
    for key, value in env.items():
        args += ["-e", f"{key}={value}"]
    return args


def docker_works(image: str | None = None) -> bool:
    """An engine answers and the sandbox image is there (a missing image would fail every job)."""
    try:
        if subprocess.run(["docker", "info"], capture_output=True, timeout=5).returncode != 0:
            return False
        return subprocess.run(["docker", "image", "inspect", image or DOCKER_IMAGE], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False

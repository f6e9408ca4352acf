"""The parts every sandbox shares: how a sandboxed process is started and limited (waiting for it
and killing it: agent.sandbox.process), and the no-isolation mode (`none`, only with
--insecure-no-sandbox).

`Sandbox.spawn` is the one entry point. Its keyword arguments are the contract with the harness
and the compiler: `pass_fds` hands open descriptors to the child under the same numbers (memfds,
pipes; inherited, or over agent.sandbox.fd_handoff where a container cannot inherit them), `layout`
makes /box a private tmpfs of a fixed size that only the sandbox sees, with the trusted files it
needs bound read-only into it. Without a layout the job's host directory is bound at /box,
read-write. Without a sandbox (`none`) the box is the host directory itself and a layout's files
are linked into it: nothing is private or sized there.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from agent.sandbox.cgroups import CgroupManager, SandboxCgroup, cgroup_manager
from agent.sandbox.child_tree import AGENT_PACKAGE
from agent.sandbox.fd_handoff import FdHandoff
from agent.sandbox.output_drain import OutputDrain
from agent.sandbox.process import SandboxedProcess
from agent.sandbox.resources import MIB, ProcessLimits

BOX = "/box"  # where the job's box directory appears inside the sandbox
AGENT_ROOT = "/opt/hipjudge"  # the agent package is bound read-only at AGENT_ROOT/agent
SITE_ROOT = f"{AGENT_ROOT}/site"  # NumPy (and its bundled libraries) for the child
# RAM of a sandbox that names no cap (GPU runs, compilers): the design's 16 GB per job.
DEFAULT_RAM_BYTES = int(os.environ.get("HIPJUDGE_SANDBOX_RAM_MB", "16384")) * MIB
SANDBOX_TASKS = 16  # tasks the sandbox itself needs beyond the child's own (bwrap, Python)


class SandboxUnavailable(RuntimeError):
    pass


@dataclass(frozen=True)
class BoxLayout:
    """A private /box: a tmpfs of `size_bytes` that lives and dies with the sandbox. `files` are
    trusted host files bound read-only at /box/<name>; `writable` host directories bound
    read-write at /box/<name>, for a trusted writer only (the compiler's output)."""

    size_bytes: int
    files: Mapping[str, Path] = field(default_factory=dict)
    writable: Mapping[str, Path] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in (*self.files, *self.writable):
            parts = PurePosixPath(name).parts
            if not parts or name.startswith("/") or ".." in parts:
                raise ValueError(f"box layout: {name!r} is not a plain relative name")

    def entries(self) -> list[tuple[str, Path, bool]]:
        """(name, host path, writable), parents before children."""
        items = [(n, Path(p), False) for n, p in self.files.items()]
        items += [(n, Path(p), True) for n, p in self.writable.items()]
        return sorted(items, key=lambda item: len(PurePosixPath(item[0]).parts))


class Sandbox:
    mode = "none"
    secure = False
    mounts_box = False  # the box appears at /box inside the sandbox; without one, paths point at it
    uses_cgroups = True  # docker caps its containers itself
    python = sys.executable  # the interpreter of the judge's child, as the sandbox names it
    # Its flags: -P keeps the box's working directory off sys.path. Here and in docker the child
    # finds NumPy through `site` (the venv's or the image's site-packages).
    python_flags: tuple[str, ...] = ("-P",)

    def __init__(self, hidden: Sequence[Path] = (), cgroups: CgroupManager | None = None) -> None:
        self.hidden = [Path(p).resolve() for p in hidden]
        self._cgroups = cgroups

    @property
    def cgroups(self) -> CgroupManager:
        if self._cgroups is None:
            self._cgroups = cgroup_manager()
        return self._cgroups

    def hide(self, path: Path) -> None:
        """Never let a child see this file or directory (the agent's token file, its workdir)."""
        self.hidden.append(Path(path).resolve())

    def enforcement(self) -> dict[str, str]:
        """What holds the memory and pids caps here, for /v1/health."""
        if self.uses_cgroups and self.cgroups.usable:
            where = self.cgroups.describe()
            return {"memory": where, "pids": where}
        why = self.cgroups.why_not if self.uses_cgroups else ""
        root = " (does not bind root)" if os.geteuid() == 0 else ""
        return {"memory": f"rlimits: RLIMIT_AS, RLIMIT_DATA where a GPU runtime needs no cap on address "
                          f"space; no cgroup: {why}", "pids": f"RLIMIT_NPROC{root}; no cgroup: {why}"}

    def spawn(
        self,
        argv: Sequence[str],
        *,
        box: Path,
        limits: ProcessLimits,
        device: str = "host",
        env: dict[str, str] | None = None,
        pass_fds: Sequence[int] = (),
        layout: BoxLayout | None = None,
    ) -> SandboxedProcess:
        """Start argv with /box as working directory; paths in argv use the in-sandbox names. Its
        stdout and stderr go to a pipe the parent drains (agent.sandbox.output_drain): no file of the
        host's is ever the child's."""
        full_env = _child_env(env or {})
        cgroup = self._cgroup(limits)
        extra_fds: tuple[int, ...] = ()
        handoff = self.hand_over(pass_fds)  # None: the child inherits them
        read_end, write_end = os.pipe2(os.O_CLOEXEC)
        try:
            command, cwd, extra_fds = self.command(list(argv), box=box, device=device, env=full_env,
                                                   limits=limits, layout=layout, handoff=handoff)
            popen = subprocess.Popen(
                command,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=write_end,
                stderr=subprocess.STDOUT,
                env=full_env if self.mode == "none" else _outer_env(),
                start_new_session=True,
                preexec_fn=_child_setup(limits, cgroup, self),  # noqa: PLW1509 - runs before exec, by design
                close_fds=True,
                pass_fds=(*(pass_fds if handoff is None else ()), *extra_fds),
            )
        except BaseException:
            os.close(read_end)
            if cgroup is not None:
                cgroup.remove(0)
            if handoff is not None:
                handoff.close()
            raise
        finally:
            os.close(write_end)
            for fd in extra_fds:
                os.close(fd)
        drain = OutputDrain(read_end, keep=limits.output_bytes, cap=limits.file_bytes)
        return SandboxedProcess(popen, drain, limits, cgroup=cgroup, on_kill=self.on_kill(command), handoff=handoff)

    def _cgroup(self, limits: ProcessLimits) -> SandboxCgroup | None:
        if not (self.uses_cgroups and self.cgroups.usable):
            return None
        return self.cgroups.create(memory_bytes=limits.ram_cap(DEFAULT_RAM_BYTES),
                                   pids=limits.nproc + SANDBOX_TASKS)

    def on_kill(self, command: list[str]) -> Callable[[], None] | None:
        return None

    def hand_over(self, fds: Sequence[int]) -> FdHandoff | None:
        """How `pass_fds` reach the child where it cannot inherit them (a container)."""
        return None

    def translate(self, box: Path, inside: str) -> str:
        """The host path of a path inside the sandbox (identity where there is no mount namespace)."""
        if self.mounts_box or not inside.startswith(BOX):
            return inside
        return inside.replace(BOX, str(box), 1)

    def command(self, argv: list[str], *, box: Path, device: str, env: dict[str, str], limits: ProcessLimits,
                layout: BoxLayout | None, handoff: FdHandoff | None) -> tuple[list[str], str, tuple[int, ...]]:
        """(the command line, its working directory, fds to hand over and close after the start)."""
        if layout is not None:  # no mount namespace: links in the box directory stand in for the binds
            for name, path, _writable in layout.entries():
                link = box / name
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(path)
        # Without a sandbox the "/box" paths in argv point at the real box directory.
        argv = [self.translate(box, a) for a in argv]
        env["PYTHONPATH"] = str(AGENT_PACKAGE.parent)
        env["HIPJUDGE_BOX"] = str(box)
        return argv, str(box), ()


SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"  # a toolchain elsewhere puts its own folder first (compiler.py)


def _child_env(extra: dict[str, str]) -> dict[str, str]:
    """A minimal environment: nothing of the agent's own (its token, cloud credentials) leaks in."""
    env = {
        "PATH": SANDBOX_PATH,
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    env.update(extra)
    return env


def _outer_env() -> dict[str, str]:
    return {"PATH": SANDBOX_PATH, "LANG": "C.UTF-8"}


def _tasks_of_uid(uid: int) -> int:
    """Threads currently owned by `uid`: RLIMIT_NPROC counts all of them, not just ours."""
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                count += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:
            continue
    return count


def _child_setup(limits: ProcessLimits, cgroup: SandboxCgroup | None, sandbox: Sandbox) -> Callable[[], None]:
    """Runs in the new process before exec: join the cgroup first, so that everything the sandbox
    ever starts is inside it, then the rlimits."""
    nproc = _tasks_of_uid(os.getuid()) + limits.nproc + SANDBOX_TASKS
    procs = cgroup.procs_files() if cgroup is not None else []
    # Without a memory cgroup, RLIMIT_DATA caps what GPU runtimes and compilers allocate (it
    # ignores the huge PROT_NONE reservations that make RLIMIT_AS unusable for them).
    data = limits.ram_cap(DEFAULT_RAM_BYTES) if cgroup is None and limits.memory_bytes is None else None
    # Docker: the container gets its limits from `docker run`; the CLI keeps only those of the log.
    docker = not sandbox.uses_cgroups

    def apply() -> None:
        for path in procs:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")  # "0": the writing process itself
            finally:
                os.close(fd)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))  # the log too
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if docker:
            return
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        if limits.memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        if data is not None:
            resource.setrlimit(resource.RLIMIT_DATA, (data, data))

    return apply

"""Memory and pids caps on a whole sandbox, through a cgroup of its own.

RLIMIT_AS breaks GPU runtimes (they reserve terabytes of address space) and never counts tmpfs or
memfd pages; RLIMIT_NPROC does not bind root. A memory cgroup counts what the sandbox really holds
(its processes, the tmpfs pages it writes to /tmp and /box, the memfds it fills, kernel memory such
as inodes) and a pids cgroup counts every thread, root's included. Each sandbox gets a fresh child
cgroup of the agent's own; the process that becomes the sandbox joins it before exec, so nothing
of the sandbox ever runs outside it.

Where this works: cgroup v2 with the memory and pids controllers delegated to the agent (a
privileged container, root on a modern host), or cgroup v1 with writable memory and pids
hierarchies (root on a v1/hybrid host). Elsewhere `cgroup_manager()` says why not, the sandbox
falls back to rlimits, and /v1/health reports which holds.
"""

from __future__ import annotations

import errno
import itertools
import os
import signal
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

PREFIX = "hipjudge-job-"
_AGENT_LEAF = "hipjudge-agent"  # v2: where the agent's own processes move so the parent may delegate
_counter = itertools.count(1)


@dataclass
class SandboxCgroup:
    version: int
    dirs: list[Path]  # v1: the memory and the pids cgroup; v2: one

    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for d in self.dirs:
            try:
                found.update(int(p) for p in (d / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                continue
        return found

    def kill_all(self) -> None:
        """SIGKILL every process in the cgroup, whatever session or process group it made."""
        if self.version == 2 and _write(self.dirs[0] / "cgroup.kill", "1"):
            return
        for _ in range(50):  # bounded: a process may fork between the read and the kill
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.02)

    def counter(self, file: str, key: str) -> int:
        """A counter from memory.events / memory.oom_control / pids.events (0 when absent)."""
        for d in self.dirs:
            try:
                for line in (d / file).read_text().splitlines():
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
            except (OSError, ValueError):
                continue
        return 0

    def oom_kills(self) -> int:
        if self.version == 2:
            return self.counter("memory.events", "oom_kill")
        return self.counter("memory.oom_control", "oom_kill")

    def pids_refusals(self) -> int:
        return self.counter("pids.events", "max")

    def remove(self, wait_s: float = 2.0) -> bool:
        """Remove the cgroup once its last process is gone; False if one stays (retried at next start)."""
        deadline = time.monotonic() + wait_s
        pending = list(self.dirs)
        while pending:
            try:
                pending[0].rmdir()
                pending.pop(0)
            except FileNotFoundError:
                pending.pop(0)
            except OSError as exc:
                if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                    return False
                self.kill_all()
                time.sleep(0.02)
        return True


@dataclass
class CgroupManager:
    version: int | None  # None: no cgroup can be made here
    parents: list[Path] = field(default_factory=list)  # v1: [memory, pids]; v2: [base]
    why_not: str = ""

    @property
    def usable(self) -> bool:
        return self.version is not None

    def describe(self) -> str:
        return f"cgroup v{self.version}" if self.version else f"none ({self.why_not})"

    def create(self, *, memory_bytes: int, pids: int) -> SandboxCgroup:
        """A fresh cgroup with these caps. Raises OSError when the cgroup file system refuses."""
        assert self.version is not None
        name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
        dirs = [parent / name for parent in self.parents]
        for d in dirs:
            d.mkdir()
        group = SandboxCgroup(self.version, dirs)
        try:
            if self.version == 2:
                _set(dirs[0] / "memory.max", str(memory_bytes))
                _write(dirs[0] / "memory.swap.max", "0")  # absent without swap accounting
                _write(dirs[0] / "memory.oom.group", "1")  # an OOM kills the whole sandbox
                _set(dirs[0] / "pids.max", str(pids))
            else:
                _set(dirs[0] / "memory.limit_in_bytes", str(memory_bytes))
                _write(dirs[0] / "memory.memsw.limit_in_bytes", str(memory_bytes))  # no swapping it out
                _set(dirs[1] / "pids.max", str(pids))
        except OSError:
            group.remove(0)
            raise
        return group

    def remove_stale(self) -> None:
        """Cgroups left by an agent that died (its pid is in the name): empty and remove them."""
        for parent in self.parents:
            for entry in parent.glob(f"{PREFIX}*"):
                pid = entry.name.removeprefix(PREFIX).split("-")[0]
                if pid.isdigit() and not _alive(int(pid)):
                    version = self.version or 1
                    SandboxCgroup(version, [entry]).remove(0.5)


def _set(path: Path, value: str) -> None:
    path.write_text(value)


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _mounts() -> list[tuple[str, str, str, list[str]]]:
    """(fstype, mount root, mount point, super options) of every mount this process sees."""
    found = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) >= 5 and len(tail) >= 3:
            found.append((tail[0], _unescape(fields[3]), _unescape(fields[4]), tail[2].split(",")))
    return found


def _unescape(text: str) -> str:
    return text.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def _own_cgroups() -> dict[str, str]:
    """controller (or "" for v2) -> this process's cgroup path."""
    own: dict[str, str] = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                own[controller] = path
    except (OSError, ValueError):
        pass
    return own


def _join(mount_root: str, mount_point: str, path: str) -> Path | None:
    """Where cgroup `path` appears under a mount of the hierarchy rooted at `mount_root`."""
    if mount_root != "/" and not (path == mount_root or path.startswith(mount_root + "/")):
        return None
    relative = path[len(mount_root):] if mount_root != "/" else path
    return Path(mount_point + relative.rstrip("/")) if relative.strip("/") else Path(mount_point)


def _probe(manager: CgroupManager) -> CgroupManager:
    """A manager is only returned usable once a real cgroup was made, capped and removed."""
    try:
        manager.remove_stale()
        group = manager.create(memory_bytes=1 << 30, pids=64)
    except OSError as exc:
        return CgroupManager(None, why_not=f"cannot create a cgroup under {manager.parents[0]}: {exc.strerror}")
    group.remove(0)
    return manager


def _v2(mounts: list[tuple[str, str, str, list[str]]], own: dict[str, str]) -> CgroupManager | None:
    mount = next((m for m in mounts if m[0] == "cgroup2"), None)
    if mount is None or "" not in own:
        return None
    base = _join(mount[1], mount[2], own[""])
    if base is None:
        return None
    try:
        available = set((base / "cgroup.controllers").read_text().split())
    except OSError:
        return None
    if not {"memory", "pids"} <= available:
        return None  # a hybrid host keeps them on v1 hierarchies
    if not _delegate(base):
        return CgroupManager(None, why_not=f"cannot enable memory and pids below {base} (not delegated?)")
    return _probe(CgroupManager(2, [base]))


def _delegate(base: Path) -> bool:
    """Enable memory and pids for base's children. A cgroup that holds processes cannot (v2's
    no-internal-processes rule): its processes move to a leaf of their own first."""
    try:
        enabled = set((base / "cgroup.subtree_control").read_text().split())
    except OSError:
        return False
    if {"memory", "pids"} <= enabled:
        return True
    if _write(base / "cgroup.subtree_control", "+memory +pids"):
        return True
    leaf = base / _AGENT_LEAF
    try:
        leaf.mkdir(exist_ok=True)
        for pid in (base / "cgroup.procs").read_text().split():
            _write(leaf / "cgroup.procs", pid)
    except OSError:
        return False
    return _write(base / "cgroup.subtree_control", "+memory +pids")


def _v1(mounts: list[tuple[str, str, str, list[str]]], own: dict[str, str]) -> CgroupManager:
    parents = []
    for controller in ("memory", "pids"):
        mount = next((m for m in mounts if m[0] == "cgroup" and controller in m[3]), None)
        if mount is None or controller not in own:
            return CgroupManager(None, why_not=f"no {controller} cgroup hierarchy")
        parent = _join(mount[1], mount[2], own[controller])
        if parent is None or not os.access(parent, os.W_OK):
            return CgroupManager(None, why_not=f"the {controller} cgroup {parent} is not writable")
        parents.append(parent)
    return _probe(CgroupManager(1, parents))


def detect() -> CgroupManager:
    mounts, own = _mounts(), _own_cgroups()
    return _v2(mounts, own) or _v1(mounts, own)


@cache
def cgroup_manager() -> CgroupManager:
    """This agent's cgroup manager, detected once (HIPJUDGE_CGROUPS=off turns cgroups off)."""
    if os.environ.get("HIPJUDGE_CGROUPS", "").lower() in ("0", "off", "no", "false"):
        return CgroupManager(None, why_not="turned off by HIPJUDGE_CGROUPS")
    return detect()

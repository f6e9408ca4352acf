"""Triton on a GPU agent, the parent's side: what the compile phase compiles for, and the Triton
cache it hands the run child.

The run sandbox starts no process (threads only), while Triton compiles its C launcher stub with
the system C compiler on first use and, on NVIDIA, assembles with `ptxas` as a subprocess. So on a
GPU agent the compile phase (which may start processes) compiles every kernel for the agent's own
GPU at every case's sizes (tests, benchmarks, ranked cases), and builds the stub
(agent.languages.triton.precompile_child); the run child gets that cache read-only and compiles
nothing (agent.languages.triton.precompiled: a miss is a clear error, never a refused process).

The cache folder was written by a sandbox that ran the user's code: it is taken out as a tar
built here from regular files only (no link followed, bounded in files and bytes), which is also
the compile cache's entry, per user scope like a C++ build.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import tarfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from agent.sandbox.resources import MIB

CACHE_NAME = "triton-cache"  # the folder's name in the compile box, the job directory and the run box
MANIFEST = "hipjudge-gpu.json"  # in it: what the run child tells Triton (the stub's runtime library, ptxas)
# What one compile may leave in the Triton cache, which becomes one compile cache entry. An honest
# compile is bounded by its time limit: each kernel's compile writes one folder of a few files (its
# source, IRs, AMDGCN, HSACO, metadata) and takes real time, so the bound is what the compile limit
# lets an honest compile write, with room (the sizes measured: docs/benchmarks.md, issue 37). It is
# also a sixteenth of the default compile cache, so that one user's entry cannot crowd out the
# others' (triton_build stores none above a sixteenth of a smaller cache either). The watch during
# the compile (cache_overflow) and the packer apply the same bounds.
MAX_CACHE_BYTES = 64 * MIB
MAX_CACHE_FILES = 4096  # files and folders, every level counted
CACHE_ENTRY_SHARE = 16  # a Triton entry is at most this fraction (1/16) of the compile cache
# Triton's cache is a folder per key of files, with a temporary folder in it while a file is
# written (the key's folder/tmp.pid_.../file): two levels of folders; a third was not Triton's.
MAX_CACHE_DEPTH = 2
# Part of the compile cache's key: a change of what the compile phase writes invalidates old entries.
PRECOMPILE_FORMAT = "triton-gpu-1"
REPORT_NAME = "report.json"  # beside the Triton cache in a compile cache entry


class CacheTreeError(Exception):
    """The Triton cache the compile wrote cannot be handed on; the message says why."""


@dataclass(frozen=True)
class GpuTarget:
    """The agent's GPU as Triton names it, and where its runtime library is (the launcher stub
    names it: a HIP runtime's file, or the folder of libcuda.so.1)."""

    backend: str  # hip | cuda
    arch: str  # gfx942 | 90
    warp_size: int
    runtime_library: str

    @property
    def name(self) -> str:
        return self.arch if self.backend == "hip" else f"sm_{self.arch}"

    def cache_flags(self) -> list[str]:
        return [PRECOMPILE_FORMAT, self.backend, self.arch, str(self.warp_size), self.runtime_library]

    def spec(self, cases: list[dict[str, Any]]) -> dict[str, Any]:
        """The launch.json entry the compile child precompiles from: `cases` are every GPU case's
        launch (agent.judging.phase.precompile_cases)."""
        return {"backend": self.backend, "arch": self.arch, "warp_size": self.warp_size, "target": self.name,
                "runtime_library": self.runtime_library, "cases": cases}


def gpu_target(device: str, arch: str | None) -> GpuTarget | None:
    """The target of a GPU agent (`arch`: gfx942, sm_90); None on the host device."""
    if device == "hip":
        return GpuTarget("hip", (arch or "gfx942").split(":")[0], 64, _hip_runtime())
    if device == "cuda":
        return GpuTarget("cuda", (arch or "sm_90").removeprefix("sm_").rstrip("a"), 32, _libcuda_folder())
    return None


@cache
def _hip_runtime() -> str:
    """The HIP runtime's file, which Triton's launcher dlopens by this path: ROCm's, else the one
    the loader's cache knows (a distribution's ROCm)."""
    for candidate in (os.environ.get("TRITON_LIBHIP_PATH"), "/opt/rocm/lib/libamdhip64.so",
                      _loader_knows("libamdhip64.so")):
        if candidate and os.path.isfile(candidate):
            return os.path.realpath(candidate)
    return "/opt/rocm/lib/libamdhip64.so"


@cache
def _libcuda_folder() -> str:
    """Where libcuda.so.1 is, as Triton would find it (the loader's cache), asked once here."""
    if configured := os.environ.get("TRITON_LIBCUDA_PATH"):
        return configured
    found = _loader_knows("libcuda.so.1")
    return os.path.dirname(found) if found else "/usr/lib/x86_64-linux-gnu"


def _loader_knows(prefix: str) -> str | None:
    """The first library of the loader's cache (`ldconfig -p`) whose name starts with `prefix`."""
    try:
        listing = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in listing.splitlines():
        name, _, path = line.strip().partition(" (")
        if name.startswith(prefix) and "=>" in path:
            return path.split("=>")[-1].strip()
    return None


def pack_cache(folder: Path, report: dict[str, Any], target: Path) -> None:
    """A tar of `report` and the regular files under `folder` (written by a sandbox: nothing in it
    is followed or trusted), at most MAX_CACHE_FILES entries and MAX_CACHE_BYTES bytes. Raises
    CacheTreeError when it holds more, or cannot be read."""
    files, total = 0, 0
    try:
        with tarfile.open(target, "w") as tar:
            data = json.dumps(report).encode()
            info = tarfile.TarInfo(REPORT_NAME)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            for relative, fd in _regular_files(folder, _Budget()):
                with os.fdopen(fd, "rb") as file:
                    size = os.fstat(file.fileno()).st_size
                    files, total = files + 1, total + size
                    if files > MAX_CACHE_FILES or total > MAX_CACHE_BYTES:
                        raise CacheTreeError(_too_much())
                    info = tarfile.TarInfo(f"{CACHE_NAME}/{relative}")
                    info.size = size
                    tar.addfile(info, file)
    except OSError as exc:  # a file that changed under the packer, a full disk: said, not a crash
        raise CacheTreeError(f"the compiled kernels could not be packed: {exc.strerror or exc}") from None


def cache_overflow(folder: Path) -> str | None:
    """While the compile runs: why the Triton cache it is writing is already over its bounds (more
    than MAX_CACHE_FILES files and folders, MAX_CACHE_BYTES bytes or MAX_CACHE_DEPTH levels), or
    None. The walk stops at the bounds, so its cost is bounded whatever the sandbox writes; a file
    that goes away meanwhile is not counted."""
    budget = _Budget()
    try:
        _measure(folder, budget, 0)
    except CacheTreeError as exc:
        return str(exc)
    return None


def unpack_cache(archive: Path, job_dir: Path) -> tuple[dict[str, Any], Path]:
    """(the report, the Triton cache folder) from a pack_cache archive, into `job_dir`."""
    folder = job_dir / CACHE_NAME
    with tarfile.open(archive) as tar:
        tar.extractall(job_dir, filter="data")  # our own archive; the data filter refuses anything odd anyway
    report = json.loads((job_dir / REPORT_NAME).read_text())
    (job_dir / REPORT_NAME).unlink()
    folder.mkdir(exist_ok=True)
    return report, folder


def _too_much() -> str:
    return f"the compiled kernels take more than {MAX_CACHE_FILES} files or {MAX_CACHE_BYTES // MIB} MiB"


class _Budget:
    """What a walk of the cache has met so far: entries of every kind and bytes of regular files
    (their size or their blocks, whichever is larger); past a bound it raises CacheTreeError."""

    def __init__(self) -> None:
        self.entries = 0
        self.bytes = 0

    def entry(self) -> None:
        self.entries += 1
        if self.entries > MAX_CACHE_FILES:
            raise CacheTreeError(_too_much())

    def add(self, info: os.stat_result) -> None:
        self.bytes += max(info.st_size, info.st_blocks * 512)
        if self.bytes > MAX_CACHE_BYTES:
            raise CacheTreeError(_too_much())


def _open_folder(name: str | Path, dir_fd: int | None = None) -> int:
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)


def _names(dir_fd: int, budget: _Budget) -> list[str]:
    """A folder's names, each charged to `budget` as it is read (never more than its bound)."""
    names = []
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            budget.entry()
            names.append(entry.name)
    return sorted(names)


def _measure(folder: Path | str, budget: _Budget, depth: int, dir_fd: int | None = None) -> None:
    try:
        fd = _open_folder(folder, dir_fd)
    except OSError:
        return
    try:
        for name in _names(fd, budget):
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                if depth + 1 > MAX_CACHE_DEPTH:
                    raise CacheTreeError(f"the compile wrote folders {depth + 1} levels deep into Triton's cache, "
                                         "which holds a folder of files per kernel")
                _measure(name, budget, depth + 1, fd)
            elif stat.S_ISREG(info.st_mode):
                budget.add(info)
    finally:
        os.close(fd)


def _regular_files(folder: Path, budget: _Budget, depth: int = 0) -> Any:
    """(path relative to `folder`, an open fd) of each regular file, two levels deep at most
    (Triton's cache: one folder per key); links and anything else are skipped, never followed.
    Every name read is charged to `budget`, so a folder of millions of names is not listed whole."""
    try:
        dir_fd = _open_folder(folder)
    except OSError:
        return
    try:
        for entry in _names(dir_fd, budget):
            info = os.stat(entry, dir_fd=dir_fd, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode) and depth == 0:
                for name, fd in _regular_files(folder / entry, budget, depth + 1):
                    yield f"{entry}/{name}", fd
            elif stat.S_ISREG(info.st_mode):
                try:
                    fd = os.open(entry, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
                except OSError:
                    continue
                if stat.S_ISREG(os.fstat(fd).st_mode):
                    yield entry, fd
                else:
                    os.close(fd)
    finally:
        os.close(dir_fd)

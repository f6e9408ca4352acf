"""Compile a submission into `solution.so`, after checking its `solution` declaration.

The compiler itself runs in the sandbox: a hostile `#include "/path/to/token"` must see nothing.
Results are cached per user scope (agent.judging.compile_cache), by a hash of source + flags + toolchain
version + target.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.judging.compile_cache import DEFAULT_MAX_BYTES, CompileCache
from agent.judging.precheck import check_imports, precheck
from agent.problems.bundle import SOURCE_SUFFIX, Problem
from agent.sandbox.boxfs import BoxFileError, copy_out, remove_tree
from agent.sandbox.modes import AGENT_ROOT, BOX, BoxLayout, Sandbox
from agent.sandbox.resources import MIB, ProcessLimits, ResourceLimits
from agent.sandbox.toolchain import Toolchain

if TYPE_CHECKING:
    from agent.languages.triton.precompile import GpuTarget

# The newest AMD target first. Debian's hipcc (ROCm 5.2 on clang 15) knows gfx940 at newest: gfx942
# (MI300X) came with LLVM 17. gfx940 is the same CDNA3 instruction set (the fp8, bf16 and xf32
# matrix instructions included), so a compile check for it is a compile check for MI300X.
HIP_ARCH_CANDIDATES = ("gfx942", "gfx940", "gfx90a")
COMPILE_RAM_BYTES = 8192 * MIB  # the compiler's processes and its /tmp together
COMPILE_OUTPUT_BYTES = 256 * MIB  # the compiled library (and any file the compiler writes)
COMPILE_BOX_BYTES = 64 * MIB  # the compiler's private /box: its working directory


@dataclass
class CompileResult:
    ok: bool
    output: str
    cached: bool
    seconds: float
    timed_out: bool = False
    library: Path | None = None  # the compiled library in the cache: a file of the parent's, not the box's
    # What the compiled kernels use of the GPU (registers, LDS, occupancy, ...), where the language's
    # compiler tells (triton: agent.languages.triton.report).
    report: dict[str, Any] | None = None
    # triton on a GPU agent: the Triton cache of every case's kernels and the launcher stub, a folder
    # of the parent's that the run child gets read-only (agent.languages.triton.precompile)
    triton_cache: Path | None = None


_COMMANDS = {"cpp": "g++", "hip": "hipcc", "cuda": "nvcc"}


@cache
def toolchain(language: str) -> Toolchain | None:
    command = _COMMANDS[language]
    if not shutil.which(command):
        return None
    try:
        out = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=30,
                             env={**os.environ, **({"HIP_PLATFORM": "amd"} if language == "hip" else {})})
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [ln.strip() for ln in (out.stdout + out.stderr).splitlines() if ln.strip()]
    # nvcc's first lines are a banner; the release line is the one that identifies it.
    version = next((ln for ln in lines if "release" in ln or "version" in ln.lower()), lines[0] if lines else "")
    return Toolchain(language, command, version)


def toolchain_versions() -> dict[str, str | None]:
    return {lang: (tc.version if (tc := toolchain(lang)) else None) for lang in _COMMANDS}


@cache
def newest_hip_arch(cache_dir: Path) -> str | None:
    """The newest of gfx942/gfx940/gfx90a this hipcc accepts: a tiny compile per candidate (a
    noticeable part of an agent's start), remembered per hipcc version in `cache_dir`, like the eviction helper, so
    that each new agent process does not probe again."""
    tc = toolchain("hip")
    if tc is None:
        return None
    key = hashlib.sha256("\0".join([tc.version, *HIP_ARCH_CANDIDATES]).encode()).hexdigest()[:24]
    remembered = cache_dir / f"hip-arch-{key}.txt"
    try:
        known = remembered.read_text().strip()
        if known in HIP_ARCH_CANDIDATES:
            return known
    except OSError:
        pass
    arch = _probe_hip_arch(tc)
    if arch is not None:  # a failed probe (a timeout on a busy machine) is tried again next time
        tmp = remembered.with_suffix(f".tmp{os.getpid()}")
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            tmp.write_text(arch)
            os.replace(tmp, remembered)  # atomic: another agent never reads half a name
        except OSError:
            tmp.unlink(missing_ok=True)  # not remembered: the next agent probes again
    return arch


def _probe_hip_arch(tc: Toolchain) -> str | None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "probe.hip")
        src.write_text('#include <hip/hip_runtime.h>\n__global__ void k(float* a) { a[0] = 1.0f; }\n')
        for arch in HIP_ARCH_CANDIDATES:
            cmd = [tc.command, f"--offload-arch={arch}", "-c", str(src), "-o", str(Path(tmp, "p.o"))]
            try:
                # hipcc leaves scratch directories behind in TMPDIR: keep them in ours.
                res = subprocess.run(cmd, capture_output=True, timeout=120,
                                     env={**os.environ, **tc.env(), "TMPDIR": tmp})
            except (OSError, subprocess.TimeoutExpired):
                continue
            if res.returncode == 0:
                return arch
    return None


LOWP_INCLUDE_DIR = Path(__file__).parent.parent / "include"


@cache
def _lowp_version() -> str:
    return hashlib.sha256((LOWP_INCLUDE_DIR / "hipjudge" / "lowp.h").read_bytes()).hexdigest()[:12]


def lowp_flags(sandbox: Sandbox) -> list[str]:
    """`#include <hipjudge/lowp.h>` for C++ solutions (the 16- and 8-bit float storage types); the
    header's hash is in the flags, hence in the compile cache's key."""
    folder = f"{AGENT_ROOT}/agent/include" if sandbox.mounts_box else str(LOWP_INCLUDE_DIR)
    return ["-I", folder, f"-DHIPJUDGE_LOWP_H={_lowp_version()}"]


HIP_COMPAT_DIR = LOWP_INCLUDE_DIR / "hip-compat"


@cache
def _hip_compat_version() -> str:
    digest = hashlib.sha256()
    for header in sorted(HIP_COMPAT_DIR.rglob("*.h")):
        digest.update(header.read_bytes())
    return digest.hexdigest()[:12]


def hip_compat_flags(sandbox: Sandbox) -> list[str]:
    """ROCm 6's <hip/hip_bf16.h> and <hip/hip_fp8.h> for a hipcc that ships neither (Debian's ROCm
    5.2): our stand-ins, searched after every system directory (`-idirafter`), so a hipcc with the
    real headers uses those. Their hash is in the flags, hence in the compile cache's key."""
    folder = f"{AGENT_ROOT}/agent/include/hip-compat" if sandbox.mounts_box else str(HIP_COMPAT_DIR)
    return ["-idirafter", folder, f"-DHIPJUDGE_HIP_COMPAT={_hip_compat_version()}"]


def header_flags(language: str, sandbox: Sandbox, chosen: Toolchain | None) -> list[str]:
    """The include flags of our own headers a language's real compiler gets (none for the emulated
    device's build, which has its own)."""
    if chosen is not None:
        return []
    return {"cpp": lowp_flags, "hip": hip_compat_flags}.get(language, lambda _: [])(sandbox)


# ---- compiling -----------------------------------------------------------------------------------

def compile_solution(
    *,
    problem: Problem,
    language: str,
    source: str,
    box: Path,
    cache_dir: Path,
    sandbox: Sandbox,
    limits: ResourceLimits,
    arch: str | None,
    cancel: threading.Event | None = None,
    cache_scope: str | None = None,
    cache_max_bytes: int = DEFAULT_MAX_BYTES,
    chosen: Toolchain | None = None,
    triton_gpu: GpuTarget | None = None,
) -> CompileResult:
    """Compile into a file of the parent's beside the box (`CompileResult.library`); raises
    CompileRejected before compiling when precheck fails. `chosen` replaces the language's own
    toolchain (the emulated device's g++ build).

    The compiler sees a private /box (a small tmpfs): the source bound read-only, and one directory
    of the job's own bound read-write for the library it writes, which the parent then copies out
    safely (agent.sandbox.boxfs.copy_out). A build is served from the cache only within the same
    `cache_scope` (one per user). `triton_gpu`: a Triton file is also compiled for that GPU at every
    case's sizes, for the run child (`CompileResult.triton_cache`)."""
    started = time.monotonic()
    if language == "triton":
        cache = CompileCache(cache_dir / "builds", cache_max_bytes) if cache_scope else None
        from agent.judging.triton_build import compile_triton_source

        return compile_triton_source(problem, source, box, sandbox, limits, cancel, started, cache, cache_scope,
                                     triton_gpu)
    precheck(problem, language, source)
    tc = chosen or toolchain(language)
    if tc is None:
        return CompileResult(False, f"the {_COMMANDS[language]} compiler is not installed on this agent",
                             False, 0.0)
    flags = [*tc.flags(arch), *header_flags(language, sandbox, chosen)]
    target = box.parent / "solution.so"  # the parent's: no sandbox ever sees this directory
    cache = CompileCache(cache_dir / "builds", cache_max_bytes)
    key = None
    if cache_scope:
        key = cache.key(scope=cache_scope, language=language, version=tc.version, flags=flags, source=source)
        if cache.get(key, target):
            # The rules may have changed since it was built.
            check_imports(problem, language, target, tc.missing_solution())
            return CompileResult(True, "", True, time.monotonic() - started, library=target)

    work = box.parent / "compile"
    remove_tree(work)
    (work / "out").mkdir(parents=True)
    src_name = f"solution{SOURCE_SUFFIX[language]}"
    compiled_name = tc.prepared_name(src_name)
    (work / compiled_name).write_text(tc.prepare(source, cancel))
    files = {compiled_name: work / compiled_name, **tc.box_folders(work)}
    if compiled_name != src_name:
        (work / src_name).write_text(source)
        files[src_name] = work / src_name
    proc = sandbox.spawn(
        [tc.command, *flags, "-o", f"{BOX}/out/solution.so", f"{BOX}/{compiled_name}"],
        box=box,
        limits=ProcessLimits(
            wall_s=limits.compile_s,
            cpu_s=int(limits.compile_s * 2) + 1,  # hipcc runs host and device passes in parallel
            memory_bytes=None if language != "cpp" else COMPILE_RAM_BYTES,
            ram_bytes=COMPILE_RAM_BYTES,  # hipcc and nvcc too: a macro bomb must not eat the host
            file_bytes=COMPILE_OUTPUT_BYTES,
            nproc=64,
            output_bytes=limits.output_kb * 1024,
        ),
        env=tc.env(),
        layout=BoxLayout(size_bytes=COMPILE_BOX_BYTES, files=files, writable={"out": work / "out"}),
    )
    outcome = proc.wait(cancel)
    output = tc.explain(scrub_paths(outcome.output, box))
    ok = outcome.ok
    if outcome.timed_out:
        output = f"compilation took longer than {limits.compile_s:g} s and was stopped\n{output}"
    elif "File size limit exceeded" in output or outcome.signal == signal.SIGXFSZ:
        output = (f"error: the compiled library (or a file the compiler writes) is larger than the limit of "
                  f"{COMPILE_OUTPUT_BYTES // MIB} MiB\n{output}")
    elif outcome.oom_killed:
        output = f"error: the compiler ran out of memory (limit {COMPILE_RAM_BYTES // MIB} MiB)\n{output}"
    if ok:
        try:  # the out directory was the sandbox's: no symlink followed, a regular file, size bounded
            copy_out(work / "out", "solution.so", target, COMPILE_OUTPUT_BYTES)  # atomic, via a temporary file
        except BoxFileError as exc:
            ok, output = False, f"{output}\nthe compiler produced no usable library ({exc})".lstrip()
    remove_tree(work)
    if ok:
        check_imports(problem, language, target, tc.missing_solution())
    if ok and key is not None:
        cache.put(key, target)
    return CompileResult(ok, output, False, time.monotonic() - started, outcome.timed_out,
                         target if ok else None)


EVICT_SOURCE = Path(__file__).parent.parent / "devices" / "evict.cpp"


def build_evict_helper(cache_dir: Path) -> Path | None:
    """The host device's cache-eviction helper, compiled once per toolchain into the cache.

    Our own source, so it is compiled outside the sandbox. None when there is no g++ or it fails:
    the host device then sweeps a buffer twice the size of the last-level cache instead."""
    tc = toolchain("cpp")
    if tc is None:
        return None
    source = EVICT_SOURCE.read_bytes()
    key = hashlib.sha256(tc.version.encode() + b"\0" + source).hexdigest()[:24]
    library = cache_dir / f"evict-{key}.so"
    if library.is_file():
        return library
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = library.with_suffix(f".tmp{os.getpid()}")
    try:
        subprocess.run([tc.command, "-O2", "-fPIC", "-shared", "-o", str(tmp), str(EVICT_SOURCE)],
                       check=True, capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        tmp.unlink(missing_ok=True)
        return None
    os.replace(tmp, library)
    return library


def scrub_paths(text: str, box: Path) -> str:
    """Compiler messages name files by their in-sandbox or host paths: show just the file name."""
    for prefix in (f"{box.resolve()}/", f"{box}/", f"{BOX}/"):
        text = text.replace(prefix, "")
    return text

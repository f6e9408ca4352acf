"""Build the emulator's runtime library and the g++ command lines for user kernels.

`build_runtime(cache_dir)` compiles `runtime/*.cpp` into `libhjemu-<key>.so` once per (g++
version, hash of every emulator source and header), atomically, like the host device's eviction
helper: our own code, so it is compiled outside the sandbox.

A user's kernel (after `rewrite.rewrite_source`) is compiled into a `solution.so` that does not
link against the runtime: its hip*/cuda* calls and the thread-index variables stay undefined
symbols, resolved when it is loaded after libhjemu.so was loaded with RTLD_GLOBAL (what
`agent.devices.gpu.load_runtime` does). So the compile needs no path to the cached library, which
the sandbox may not see, and one compiled solution works with any build of the same runtime ABI.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import platform
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

from agent.emulator.target import target_flags
from agent.emulator.unsupported import ASM_REFUSAL

EMULATOR_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = EMULATOR_DIR / "include"
# hipjudge/lowp.h: the 16- and 8-bit float conversions the emulator's fp16/bf16/fp8 headers use.
LOWP_INCLUDE_DIR = EMULATOR_DIR.parent / "include"
RUNTIME_DIR = EMULATOR_DIR / "runtime"
FAULT_EXIT_CODE = 86  # a kernel fault: the runtime printed one `hjemu: ` line on stderr
HEADERS = {"hip": "hip/hip_runtime.h", "cuda": "cuda_runtime.h"}

log = logging.getLogger(__name__)


def _arch_flags() -> list[str]:
    if platform.machine() in ("x86_64", "AMD64"):
        # TLS descriptors make threadIdx & co. (thread-locals of another library) cheap to read
        # (runtime/tls.cpp keeps them on the descriptors' fast path, which old glibcs need);
        # no CET: the fibers switch stacks, which a shadow stack would refuse.
        return ["-mtls-dialect=gnu2", "-fcf-protection=none"]
    return []


RUNTIME_FLAGS = ["-O2", "-std=c++17", "-fPIC", "-pthread", *_arch_flags()]


def emulator_flags(language: str, include_dir: Path = INCLUDE_DIR, walls: Path | str | None = None,
                   target: str | None = None, pch: Path | str | None = None) -> list[str]:
    """g++ flags for a rewritten HIP (`hip`) or CUDA (`cuda`) source: the device pass's macros of
    `target` (default: the pool's GPU, agent.emulator.target), the API's header included first, as
    hipcc and nvcc do, and after the emulator's headers the walls (agent.emulator.unsupported) that
    keep every ROCm or CUDA header of the machine out of reach; with `pch`, build_pch's folder
    first. No strict aliasing: kernels pun float* to float4*. Stack clash protection: a GPU thread's
    big local array probes its stack's guard page by page, so an overflow is reported instead of
    landing in a neighbouring stack."""
    walled = ["-I", str(walls)] if walls is not None else []
    precompiled = ["-I", str(pch)] if pch is not None else []  # build_pch: the API's header, parsed once
    return [*precompiled, "-O2", "-std=c++17", "-fPIC", "-shared", "-fno-strict-aliasing", "-fstack-clash-protection",
            "-Wno-psabi",  # MFMA's 64-byte accumulator vectors are passed by value: no ABI concern here
            *_arch_flags(), *target_flags(language, target), f"-Dasm={ASM_REFUSAL}",
            "-I", str(include_dir), "-I", str(Path(include_dir).parent.parent / "include"),  # hipjudge/lowp.h
            *walled, "-include", HEADERS[language], "-x", "c++"]


def emulator_compile_command(source: Path, output: Path, language: str, include_dir: Path = INCLUDE_DIR,
                             walls: Path | None = None) -> list[str]:
    return ["g++", *emulator_flags(language, include_dir, walls), "-o", str(output), str(source)]


@cache
def gxx_version() -> str | None:
    if not shutil.which("g++"):
        return None
    try:
        out = subprocess.run(["g++", "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = out.stdout.splitlines()
    return lines[0].strip() if out.returncode == 0 and lines else None


def runtime_key(version: str) -> str:
    """Changes with the compiler, the flags, and any file of the runtime or the headers."""
    digest = hashlib.sha256(version.encode() + b"\0" + " ".join(RUNTIME_FLAGS).encode())
    for root in (RUNTIME_DIR, INCLUDE_DIR, LOWP_INCLUDE_DIR):
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            digest.update(f"\0{root.name}/{path.relative_to(root)}\0".encode() + path.read_bytes())
    return digest.hexdigest()[:24]


PCH = "hjemu-pch"  # the folder of a precompiled API header, first on the compile's search path


def pch_flags(language: str, target: str | None = None) -> list[str]:
    """What the precompiled header is built with: the compile's flags up to its forced include,
    which must be the same when it is used (g++ checks the macros and the code generation options;
    the search path may differ: the sandbox sees the headers elsewhere)."""
    flags = emulator_flags(language, INCLUDE_DIR, target=target)
    return [f for f in flags[:flags.index("-include")] if f != "-shared"]


def build_pch(cache_dir: Path, language: str, target: str | None = None) -> Path | None:
    """A folder holding the API's header precompiled (`hip/hip_runtime.h.gch`) beside a stand-in
    `hip/hip_runtime.h`, built once per runtime key and flags into cache_dir; None when it cannot
    be built (a compile then parses the header itself, as it does without the folder).

    Parsing the header and the C++ library it includes is half of a small kernel's compile. g++
    looks for `X.gch` in each folder of the search path before `X`, so this folder comes first.
    Once it has used the precompiled header, g++ takes the folder for the header's own (a later
    `#include <hip/hip_runtime.h>` opens the folder's), so the stand-in is there: `#include_next`
    of the real header, which the precompiled one already holds (`#pragma once` is matched by
    content, wherever the sandbox shows the file). Without a usable .gch (another g++), the
    stand-in leads to the real header and nothing changes."""
    version = gxx_version()
    if version is None:
        return None
    flags = pch_flags(language, target)
    key = hashlib.sha256(f"{runtime_key(version)}\0{language}\0{' '.join(flags)}".encode()).hexdigest()[:24]
    folder = Path(cache_dir) / f"{PCH}-{key}"
    if folder.is_dir():
        return folder
    Path(cache_dir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".hjemu-pch-") as tmp:
        staging = Path(tmp, "pch")
        header = staging / HEADERS[language]
        header.parent.mkdir(parents=True)
        header.write_text("// hjemu: stands beside the precompiled header; the header itself is the emulator's.\n"
                          f"#pragma once\n#include_next <{HEADERS[language]}>\n")
        wrapper = Path(tmp, "wrapper.h")  # the header included, not compiled as the main file: its #pragma once counts
        wrapper.write_text(f"#include <{HEADERS[language]}>\n")
        if not _run(["g++", *flags, "-x", "c++-header", "-o", f"{header}.gch", str(wrapper)]):
            return None
        with contextlib.suppress(OSError):  # another agent's build got there first: the same files
            os.rename(staging, folder)
    return folder if folder.is_dir() else None


def build_runtime(cache_dir: Path) -> Path | None:
    """The path of libhjemu.so for this g++, built into cache_dir if needed; None without g++
    or when the build fails (the compiler's output is logged)."""
    version = gxx_version()
    if version is None:
        return None
    library = Path(cache_dir) / f"libhjemu-{runtime_key(version)}.so"
    if library.is_file():
        return library
    library.parent.mkdir(parents=True, exist_ok=True)
    # One build at a time per folder (a lock on the folder itself: nothing left behind): agents that
    # start together on one shared folder (make test's runs) wait for the first build instead of
    # each compiling the same units again.
    folder = os.open(library.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with contextlib.suppress(OSError):  # a file system without locks: builds may overlap, each atomic
            fcntl.flock(folder, fcntl.LOCK_EX)
        return library if library.is_file() else _build(library)
    finally:
        os.close(folder)  # releases the lock


def _build(library: Path) -> Path | None:
    with tempfile.TemporaryDirectory(dir=library.parent, prefix=".hjemu-build-") as tmp:
        units = sorted(RUNTIME_DIR.glob("*.cpp"))
        objects = [Path(tmp, f"{unit.stem}.o") for unit in units]
        commands = [["g++", *RUNTIME_FLAGS, "-I", str(LOWP_INCLUDE_DIR), "-c", "-o", str(obj), str(unit)]
                    for unit, obj in zip(units, objects, strict=True)]
        commands.append(["g++", *RUNTIME_FLAGS, "-shared", "-o", str(Path(tmp, "lib.so")),
                         *map(str, objects)])
        with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
            if not all(pool.map(_run, commands[:-1])) or not _run(commands[-1]):
                return None
        os.replace(Path(tmp, "lib.so"), library)  # atomic: a concurrent reader sees all or nothing
    return library


def _run(command: list[str]) -> bool:
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.error("building the emulator runtime failed: %s", exc)
        return False
    if result.returncode != 0:
        log.error("building the emulator runtime failed:\n%s", (result.stdout + result.stderr)[-4000:])
    return result.returncode == 0

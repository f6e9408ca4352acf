"""Compile a submission into `solution.so`, after checking its `solution` declaration.

The compiler itself runs in the sandbox: a hostile `#include "/path/to/token"` must see nothing.
Results are cached by a hash of source + flags + toolchain version + target.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agent.limits import MIB, Limits, ProcessLimits
from agent.problems import C_TYPES, SOURCE_SUFFIX, Param, Problem
from agent.sandbox import BOX, Sandbox

# The newest AMD target first: Debian's hipcc (ROCm 5.2) only knows gfx90a.
HIP_ARCH_CANDIDATES = ("gfx942", "gfx940", "gfx90a")


class CompileRejected(ValueError):
    """The source was refused before compiling (signature or forbidden pattern)."""


@dataclass(frozen=True)
class Toolchain:
    language: str
    command: str  # the compiler driver on PATH
    version: str  # first line of `--version`, part of the cache key

    def flags(self, arch: str | None) -> list[str]:
        if self.language == "cpp":
            return ["-O3", "-march=native", "-std=c++17", "-fPIC", "-shared"]
        if self.language == "hip":
            return ["-O3", "-std=c++17", "-fPIC", "-shared", f"--offload-arch={arch or 'gfx942'}"]
        # `-cudart shared`: the judge's own ctypes binding and the kernel must share one runtime.
        return ["-O3", "-std=c++17", f"-arch={arch or 'native'}", "-Xcompiler", "-fPIC", "-shared",
                "-cudart", "shared"]

    def env(self) -> dict[str, str]:
        # nvcc is often installed beside hipcc, and hipcc would then pick the NVIDIA platform.
        return {"HIP_PLATFORM": "amd"} if self.language == "hip" else {}


@dataclass
class CompileResult:
    ok: bool
    output: str
    cached: bool
    seconds: float
    timed_out: bool = False
    library: Path | None = None  # host path of the compiled solution.so inside the box


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
def newest_hip_arch() -> str | None:
    """The newest of gfx942/gfx940/gfx90a this hipcc accepts (a tiny compile per candidate)."""
    tc = toolchain("hip")
    if tc is None:
        return None
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


# ---- checks before compiling ---------------------------------------------------------------------

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_EXTERN_C = re.compile(r'\bextern\s*"C"')
_DECL = re.compile(r"\bvoid\s+solution\s*\(([^)]*)\)")
_QUALIFIERS = re.compile(r"\b(const|__restrict__|__restrict|restrict|volatile|struct)\b")


def precheck(problem: Problem, language: str, source: str) -> None:
    """Refuse with a reason a user can act on: a missing/mis-typed `solution` or a forbidden pattern."""
    code = _COMMENTS.sub(" ", source)
    for rule in problem.forbidden:
        if language in rule.languages and rule.search(code):
            raise CompileRejected(f"forbidden: {rule.reason}")
    decls = [m for m in _DECL.finditer(code)]
    if not decls:
        raise CompileRejected(f"no `solution` function found: declare {problem.c_signature()}")
    definition = decls[-1]
    if not _EXTERN_C.search(code[: definition.start()]):
        raise CompileRejected(f'`solution` must be declared extern "C": {problem.c_signature()}')
    if "__global__" in code[max(0, definition.start() - 40): definition.start()]:
        raise CompileRejected("`solution` must be a host function that launches your kernel, not a __global__ kernel")
    params = [p.strip() for p in definition.group(1).split(",") if p.strip() and p.strip() != "void"]
    if len(params) != len(problem.signature):
        raise CompileRejected(
            f"`solution` takes {len(params)} parameter(s) but the problem declares {len(problem.signature)}: "
            f"{problem.c_signature()}"
        )
    for i, (text, want) in enumerate(zip(params, problem.signature, strict=True), start=1):
        if not _param_matches(text, want):
            raise CompileRejected(
                f"`solution` parameter {i} is `{' '.join(text.split())}` but the problem declares "
                f"`{want.declaration()}`: {problem.c_signature()}"
            )


def _param_matches(text: str, want: Param) -> bool:
    text = re.sub(r"\[\s*\]", "*", text)  # `float a[]` is a pointer too
    pointers = text.count("*")
    words = _QUALIFIERS.sub(" ", text.replace("*", " ").replace("&", " & ")).split()
    if "&" in words:
        return False
    words = [w.removeprefix("std::") for w in words]  # `std::size_t n` is `size_t n`
    spellings = C_TYPES[want.ctype][1]
    # With a parameter name (`size_t n`) or without one (`size_t`, `unsigned long`).
    spelled = " ".join(words[:-1]) in spellings or " ".join(words) in spellings
    return pointers == (1 if want.pointer else 0) and spelled


# ---- compiling -----------------------------------------------------------------------------------

def compile_solution(
    *,
    problem: Problem,
    language: str,
    source: str,
    box: Path,
    cache_dir: Path,
    sandbox: Sandbox,
    limits: Limits,
    arch: str | None,
    cancel: threading.Event | None = None,
) -> CompileResult:
    """Compile into box/solution.so; raises CompileRejected before compiling when precheck fails."""
    started = time.monotonic()
    precheck(problem, language, source)
    tc = toolchain(language)
    if tc is None:
        return CompileResult(False, f"the {_COMMANDS[language]} compiler is not installed on this agent",
                             False, 0.0)
    flags = tc.flags(arch)
    key = hashlib.sha256("\0".join([language, tc.version, *flags, source]).encode()).hexdigest()
    cached = cache_dir / f"{key}.so"
    target = box / "solution.so"
    if cached.is_file():
        shutil.copyfile(cached, target)
        return CompileResult(True, "", True, time.monotonic() - started, library=target)

    src_name = f"solution{SOURCE_SUFFIX[language]}"
    (box / src_name).write_text(source)
    proc = sandbox.spawn(
        [tc.command, *flags, "-o", f"{BOX}/solution.so", f"{BOX}/{src_name}"],
        box=box,
        limits=ProcessLimits(
            wall_s=limits.compile_s,
            cpu_s=int(limits.compile_s * 2) + 1,  # hipcc runs host and device passes in parallel
            memory_bytes=None if language != "cpp" else 8192 * MIB,
            file_bytes=512 * MIB,
            nproc=64,
            output_bytes=limits.output_kb * 1024,
        ),
        env=tc.env(),
        log_name="compile.log",
    )
    outcome = proc.wait(cancel)
    output = scrub_paths(outcome.output, box)
    ok = outcome.ok and target.is_file()
    if outcome.timed_out:
        output = f"compilation took longer than {limits.compile_s:g} s and was stopped\n{output}"
    if ok:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".tmp{os.getpid()}")
        shutil.copyfile(target, tmp)
        os.replace(tmp, cached)  # atomic: a concurrent reader never sees half a library
    return CompileResult(ok, output, False, time.monotonic() - started, outcome.timed_out,
                         target if ok else None)


EVICT_SOURCE = Path(__file__).parent / "devices" / "evict.cpp"


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

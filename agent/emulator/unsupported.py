"""What the emulated device does not model becomes a compile error that says so.

- **Headers.** The emulated build must see only its own headers (`include/`), never a ROCm or CUDA
  header the machine happens to have (Debian's hipcc puts `hip/` in /usr/include, on g++'s own
  search path). g++ goes on to the next folder of its search path when a header is not in one,
  but stops at a file that exists and cannot be opened. So a folder of *walls* comes right after
  the emulator's own: for each name below, a symbolic link to itself. `<hip/hip_ext.h>` is then
  looked up as `walls/hip/hip_ext.h`, which fails with ELOOP, and the search ends there; a
  header of ours (`hip/hip_runtime.h`) is found before. The walls are made per compile
  (`make_walls`): a link that loops has no place in the repository's tree, which tools copy.
- **Builtins and inline assembly.** g++ reports an AMD or NVIDIA builtin the emulator lacks as an
  undeclared name and GCN or PTX assembly as assembler errors or bad constraints (or compiles it
  where it happens to be x86 assembly); so `asm` itself is defined (`-Dasm=...`, flags) as a
  `static_assert(false, ...)` before the real `__asm__`: `asm volatile(...)` fails at its line, in
  whichever branch the preprocessor keeps, as on the GPU that branch is compiled. `__asm__`
  (rarer in kernels: libc's headers use it, so it stays a keyword) ends at the assembler or the
  constraints. `explain` rewrites those messages of g++'s output to say that the emulated device
  does not model the builtin, the header or the assembly.

`explain` reads the compiler's output (bounded, agent.sandbox.resources.ResourceLimits.output_kb)
line by line with anchored patterns of one repetition each: linear in its length.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

WALLS = "hjemu-walls"  # the folder's name: error messages name a wall by it
# Folders and files of the GPU toolkits and their libraries that a system include path may hold.
WALLED = (
    "hip", "hipcub", "hipblas", "hipblaslt", "hipfft", "hiprand", "hipsparse", "hipsolver", "hsa", "rocblas",
    "rocfft", "rocprim", "rocrand", "rocsparse", "rocwmma", "rccl", "ck", "ck_tile", "roctracer", "amd_comgr",
    "cuda", "cub", "thrust", "cutlass", "cute", "crt", "nv", "cooperative_groups", "cooperative_groups.h",
    "cuda.h", "cudaTypedefs.h", "cublas.h", "cublas_v2.h", "cublasLt.h", "curand.h", "curand_kernel.h",
    "cufft.h", "cusparse.h", "cuComplex.h", "cuda_pipeline.h", "cuda_awbarrier.h", "math_constants.h",
    "nccl.h", "nvrtc.h", "hip_runtime.h",
)
NOT_MODELLED = "is not modelled by the emulated device"
ASM_MESSAGE = f"inline assembly {NOT_MODELLED}: it runs kernels on the CPU, without the GPU's instruction set"
# What `asm` expands to: a refusal at the line that uses it (the real `__asm__` after it keeps the
# statement well formed, so no other error comes first).
ASM_REFUSAL = f'static_assert(false, "{ASM_MESSAGE}"); __asm__'
# Builtins and device libraries of the GPU compilers (AMD's amdgcn/OCML/OCKL, NVIDIA's NVVM/libdevice).
GPU_BUILTIN_PREFIXES = ("__builtin_amdgcn_", "__builtin_r600_", "__builtin_nvvm_", "__nvvm_", "__ocml_", "__ockl_",
                        "__llvm_amdgcn_", "__nv_")

_LOCATION = r"(?P<loc>[^\n:]{1,4096}:\d{1,9}:(?:\d{1,9}:)? )"
_MISSING_HEADER = re.compile(_LOCATION + r"fatal error: (?P<path>[^\n:]{1,4096}): "
                             r"(?:No such file or directory|Too many levels of symbolic links)$")
_UNDECLARED = re.compile(_LOCATION + r"error: .*?[‘'`](?P<name>(?:" + "|".join(GPU_BUILTIN_PREFIXES)
                         + r")\w{0,512})[’']")
_ASM_USE = re.compile(_LOCATION + r"note: in expansion of macro [‘']asm[’']$")
_ASM_CONSTRAINT = re.compile(_LOCATION + r"error: (?P<what>.{0,4096}(?:constraint|[‘']asm[’']).*)$")
_ASSEMBLER = re.compile(r"(?P<loc>[^\n:]{1,4096}:\d{1,9}: )Error: (?P<what>.*)$")
# Clang's swizzles (`v.x`, `v.xy`, `v.s0`) on an ext_vector_type vector, which the rewrite made a g++
# vector: g++ says the member is requested of a non-class `__vector(N) T`.
_SWIZZLE = re.compile(_LOCATION + r"error: request for member [‘'](?P<member>[xyzwrgbas0-9A-Fa-f]{1,16})[’'] in "
                      r"[‘'][^’'\n]{0,4096}[’'], which is of non-class type ")


def make_walls(folder: Path) -> Path:
    """`folder` holding a self-referencing link per walled name."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in WALLED:
        with contextlib.suppress(FileExistsError):  # made before, or by a compile beside this one
            os.symlink(name, folder / name)
    return folder


def header_name(path: str) -> str:
    """The name a user's `#include` asked for: a wall's path without the walls' folder."""
    before, wall, after = path.rpartition(f"{WALLS}/")
    return after if wall else path


def explain(output: str, target: str) -> str:
    """g++'s output with each message about what the emulated device lacks said plainly."""
    lines = output.splitlines()
    explained: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("<command-line>: error: ") and ASM_MESSAGE in line:
            # The refusal is spelled on the command line; the note after it names the user's line.
            use = _ASM_USE.match(lines[k + 1]) if k + 1 < len(lines) else None
            explained.append(f"{use['loc'] if use else ''}error: {ASM_MESSAGE}")
            k += 2 if use else 1
            continue
        explained.append(_explained(line, target) or line)
        k += 1
    return "\n".join(explained) + ("\n" if output.endswith("\n") else "")


def _explained(line: str, target: str) -> str | None:
    if "fatal error: " in line and (header := _MISSING_HEADER.match(line)):
        return (f"{header['loc']}fatal error: <{header_name(header['path'])}> is not provided by the emulated "
                "device: it has its own HIP or CUDA runtime, fp16/bf16/fp8 and matrix headers and the C++ "
                "standard library, never a ROCm or CUDA installation's headers")
    if "error: " in line and (builtin := _UNDECLARED.match(line)):
        return f"{builtin['loc']}error: `{builtin['name']}` {NOT_MODELLED} ({target} on the CPU)"
    if "request for member" in line and (swizzle := _SWIZZLE.match(line)) and "__vector(" in line[swizzle.end():]:
        return (f"{swizzle['loc']}error: the swizzle `.{swizzle['member']}` of an ext_vector_type vector "
                f"{NOT_MODELLED}: read and write its elements by subscript (`v[0]` for `.x`, `v[1]` for `.y`, ...)")
    if "error: " in line and (constraint := _ASM_CONSTRAINT.match(line)):
        return f"{constraint['loc']}error: {ASM_MESSAGE} ({constraint['what'][:200]})"
    if ": Error: " in line and (assembler := _ASSEMBLER.match(line)):
        return f"{assembler['loc']}error: {ASM_MESSAGE} (the assembler: {assembler['what'][:200]})"
    return None

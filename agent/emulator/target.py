"""The GPU the emulated device stands for, as its compiler's device pass sees it.

A pool checks HIP on the emulated device in place of an MI300X (gfx942) and CUDA in place of an
H100 (sm_90): the emulator runs 64-lane wavefronts with gfx942's MFMA layouts and FNUZ fp8, and
32-lane warps. So a kernel is compiled with the macros the real compiler predefines in its device
pass for that target, and code behind `#if defined(__gfx942__)` or `#if __CUDA_ARCH__ >= 800` takes
the path it takes on the GPU.

hipcc and nvcc compile a source twice, once for the host and once for the device; g++ compiles it
once. That one pass is the device pass: the device macros are defined for the whole source, host
functions included (docs/emulator.md says what that means for code that guards host-only code).

The lists are clang's `AMDGPUTargetInfo::getTargetDefines` for gfx942 (plus what its HIP front end
and hipcc add; checked against `clang -x hip --cuda-device-only -dM -E` for gfx940, the closest
target Debian's clang 15 knows) and `nvcc -arch=sm_90 -E -Xcompiler -dM` (CUDA 13). Not here:
`__clang__` (g++ is not clang: libstdc++ would take clang's paths) and `__gfx94__`, which no
compiler defines: Composable Kernel's own headers define it from `__gfx942__`, as a kernel that
copies that block does here too.
"""

from __future__ import annotations

# What a pool's GPU is for each language checked on the emulated device.
EMULATED_TARGETS = {"hip": "gfx942", "cuda": "sm_90"}
# The CUDA release the emulator's cuda_runtime.h claims (CUDART_VERSION 12080).
CUDA_RELEASE = (12, 8)

_HIP_DEVICE_PASS = {
    "__HIP__": "1", "__HIPCC__": "1", "__HIP_DEVICE_COMPILE__": "1",
    "__HIP_PLATFORM_AMD__": "1", "__HIP_PLATFORM_HCC__": "1",  # hipcc's own -D flags
    "__AMD__": "1", "__AMDGPU__": "1", "__AMDGCN__": "1",
    "__AMDGCN_WAVEFRONT_SIZE__": "64", "__AMDGCN_WAVEFRONT_SIZE": "64", "__AMDGCN_CUMODE__": "1",
    "__HAS_FMAF__": "1", "__HAS_FP64__": "1", "__HAS_LDEXPF__": "1", "FP_FAST_FMA": "1", "FP_FAST_FMAF": "1",
    "__HIP_MEMORY_SCOPE_SINGLETHREAD": "1", "__HIP_MEMORY_SCOPE_WAVEFRONT": "2",
    "__HIP_MEMORY_SCOPE_WORKGROUP": "3", "__HIP_MEMORY_SCOPE_AGENT": "4", "__HIP_MEMORY_SCOPE_SYSTEM": "5",
}
# gfx9 family members the emulator models (CDNA3: the same wavefronts, MFMA layouts and fp8).
_HIP_FAMILIES = {"gfx942": "__GFX9__"}


class UnknownTarget(ValueError):
    """A target the emulated device does not model."""


def target_macros(language: str, target: str | None = None) -> dict[str, str]:
    """name -> value of every macro the device pass for `target` (default: the pool's) predefines."""
    target = target or EMULATED_TARGETS[language]
    if language == "hip":
        family = _HIP_FAMILIES.get(target)
        if family is None:
            raise UnknownTarget(f"the emulated device models {', '.join(_HIP_FAMILIES)}, not {target}")
        return {**_HIP_DEVICE_PASS, f"__{target}__": "1", family: "1",
                "__amdgcn_processor__": f'"{target}"', "__amdgcn_target_id__": f'"{target}"'}
    sm = target.removeprefix("sm_")
    if not (target.startswith("sm_") and sm.isdigit() and 70 <= int(sm) < 1000):
        raise UnknownTarget(f"the emulated device models CUDA targets sm_70 and newer, not {target}")
    major, minor = CUDA_RELEASE
    return {"__CUDACC__": "1", "__NVCC__": "1", "__CUDA_ARCH__": f"{sm}0", "__CUDA_ARCH_LIST__": f"{sm}0",
            "__CUDACC_VER_MAJOR__": str(major), "__CUDACC_VER_MINOR__": str(minor), "__CUDACC_VER_BUILD__": "0",
            "__CUDA_API_VER_MAJOR__": str(major), "__CUDA_API_VER_MINOR__": str(minor)}


def target_flags(language: str, target: str | None = None) -> list[str]:
    return [f"-D{name}={value}" for name, value in target_macros(language, target).items()]

"""What a compiled Triton kernel uses of the GPU, read from what the compiler wrote.

gfx942 (MI300X): the AMDGCN listing's resource comments (`; NumVgprs: 168`, `; Occupancy: 3`, the
kernel descriptor's spill counts) and the kernel's dynamic LDS (Triton allocates its shared memory
at launch: `metadata.shared`), the count of `v_mfma` instructions (the matrix cores). Occupancy is
waves per SIMD, which the listing computes from the registers and LDS (at most 8 on gfx942).
sm_90 (H100): the ptxas Triton assembled with, asked for its resource usage of the PTX (registers,
spill stores and loads, shared memory), and the count of tensor-core instructions (wgmma / mma).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

REPORT_MARKER = "HIPJUDGE-TRITON-REPORT "  # starts the report's line in the compile child's output
MAX_LISTING_CHARS = 1 << 20  # of the AMDGCN listing in the report, all kernels together
LISTING_CHUNK_CHARS = 60_000  # the listing travels in chunks: an event's strings are cut at 64 KiB
_AMD_FIELDS = {
    "vgprs": r"^\s*;\s*NumVgprs:\s*(\d+)",
    "agprs": r"^\s*;\s*NumAgprs:\s*(\d+)",
    "sgprs": r"^\s*;\s*TotalNumSgprs:\s*(\d+)",
    "scratch_bytes": r"^\s*;\s*ScratchSize:\s*(\d+)",
    "occupancy_waves_per_simd": r"^\s*;\s*Occupancy:\s*(\d+)",
    "static_lds_bytes": r"^\s*;\s*LDSByteSize:\s*(\d+)",
    "vgpr_spills": r"^\s*\.vgpr_spill_count:\s*(\d+)",
    "sgpr_spills": r"^\s*\.sgpr_spill_count:\s*(\d+)",
}
_MFMA = re.compile(r"^\s*v_mfma\w*", re.MULTILINE)
_NV_MMA = re.compile(r"^\s*(wgmma\.mma_async|mma\.sync)\S*", re.MULTILINE)


def kernel_report(kernel: Any, backend: str) -> dict[str, Any]:
    """One compiled kernel (triton.compiler.CompiledKernel) as the report shows it."""
    meta = kernel.metadata
    src = getattr(kernel, "src", None)
    report: dict[str, Any] = {
        "name": meta.name,
        "signature": dict(getattr(src, "signature", {}) or {}),
        "constexprs": _constexprs(src),
        "num_warps": meta.num_warps,
        "num_stages": getattr(meta, "num_stages", None),
        "dynamic_lds_bytes" if backend == "hip" else "dynamic_shared_bytes": meta.shared,
    }
    if backend == "hip":
        report.update(amdgcn_resources(kernel.asm.get("amdgcn", "")))
        report["lds_bytes"] = report.get("static_lds_bytes", 0) + meta.shared
        report["amdgcn"] = kernel.asm.get("amdgcn", "")
    else:
        report.update(ptxas_resources(kernel.asm.get("ptx", ""), int(meta.target.arch)))
        report["shared_bytes"] = report.get("shared_bytes", 0) + meta.shared  # static (ptxas) + Triton's dynamic
    return report


def amdgcn_resources(listing: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, pattern in _AMD_FIELDS.items():
        match = re.search(pattern, listing, re.MULTILINE)
        if match:
            found[key] = int(match.group(1))
    found["mfma_instructions"] = len(_MFMA.findall(listing))
    found["spills"] = found.get("vgpr_spills", 0) + found.get("sgpr_spills", 0)
    return found


def ptxas_resources(ptx: str, arch: int) -> dict[str, Any]:
    found: dict[str, Any] = {"mma_instructions": len(_NV_MMA.findall(ptx))}
    ptxas = _ptxas(arch)
    if ptxas is None or not ptx:
        found["ptxas"] = "not available"
        return found
    target = re.search(r"^\.target\s+(sm_\w+)", ptx, re.MULTILINE)  # sm_90a: what Triton emits for H100
    gpu = target.group(1) if target else f"sm_{arch}"
    try:
        run = subprocess.run([str(ptxas), f"--gpu-name={gpu}", "-v", "-", "-o", "/dev/null"], input=ptx,
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        found["ptxas"] = f"failed: {exc}"
        return found
    text = run.stdout + run.stderr
    for key, pattern in (("registers", r"Used (\d+) registers"), ("shared_bytes", r"(\d+) bytes smem"),
                         ("spill_stores_bytes", r"(\d+) bytes spill stores"),
                         ("spill_loads_bytes", r"(\d+) bytes spill loads")):
        match = re.search(pattern, text)
        if match:
            found[key] = int(match.group(1))
    if run.returncode != 0:
        found["ptxas"] = text.strip().splitlines()[-1][:300] if text.strip() else f"exit {run.returncode}"
    return found


def _ptxas(arch: int) -> Path | None:
    """The ptxas Triton itself assembles with for `arch` (the wheel holds two, of different CUDA
    versions, and the older rejects the newer PTX)."""
    try:
        from triton.backends.nvidia.compiler import get_ptxas

        path = Path(get_ptxas(arch).path)
    except (ImportError, AttributeError, RuntimeError, TypeError):
        return None
    return path if path.is_file() else None


def _constexprs(src: Any) -> dict[str, Any]:
    """The constexpr arguments by name (Triton keys them by their path in the argument list)."""
    names = list(getattr(getattr(src, "fn", None), "arg_names", []) or [])
    found = {}
    for key, value in (getattr(src, "constants", {}) or {}).items():
        index = key[0] if isinstance(key, tuple) and len(key) == 1 else key
        name = names[index] if isinstance(index, int) and index < len(names) else str(index)
        found[name] = _plain(value)
    return found


def _plain(value: Any) -> Any:
    return value if isinstance(value, bool | int | float | str) or value is None else str(value)


def listing_chunks(listing: str) -> list[str]:
    listing = listing[:MAX_LISTING_CHARS]
    return [listing[i: i + LISTING_CHUNK_CHARS] for i in range(0, len(listing), LISTING_CHUNK_CHARS)]

"""The speed of light of a kernel: the least time a case can take on a device (its roofline floor),
and a measured time as a percentage of it.

floor = max(FLOPs / peak compute of the problem's `flops_type`, bytes / peak memory bandwidth)

Pure arithmetic over a table of peaks (no Django, no NumPy): the agent bounds reported times with
it, the platform shows results against the pool's peaks. Sources of the tables:
docs/speed-of-light.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# What a problem's matrix or vector work runs in (problem.yaml `flops_type`), widest first.
# `fp32_emulated`: fp32 products at the accuracy an fp32 check accepts, computed as three bf16
# products of split inputs (hi*hi + hi*lo + lo*hi) on the matrix cores: a third of the bf16 rate
# where that beats the fp32 one (docs/speed-of-light.md says why it is allowed).
FLOPS_TYPES = ("fp64", "fp32", "fp32_emulated", "fp16", "bf16", "fp8", "int8")
DEFAULT_FLOPS_TYPE = "fp32"
EMULATED_FP32 = "fp32_emulated"
EMULATED_FP32_PASSES = 3


@dataclass(frozen=True)
class Peaks:
    """One device's documented (or measured) peaks: memory bandwidth in GB/s and dense compute in
    GFLOPS (GOPS for int8) per type. A type the table lacks runs at the fp32 rate."""

    gbps: float
    gflops: Mapping[str, float]

    def compute(self, flops_type: str) -> float:
        fp32 = self.gflops[DEFAULT_FLOPS_TYPE]
        if flops_type == EMULATED_FP32 and not self.gflops.get(flops_type):
            return max(fp32, self.gflops.get("bf16", 0.0) / EMULATED_FP32_PASSES)
        return self.gflops.get(flops_type) or fp32

    def as_dict(self) -> dict[str, Any]:
        return {"gbps": self.gbps, "gflops": dict(self.gflops)}


# AMD Instinct MI300X data sheet (CDNA3), dense, no sparsity: HBM3 5.3 TB/s; the matrix cores' peaks
# (fp64 matrix 163.4 TFLOPS is twice the fp64 vector rate, and a floor is the faster of the two).
MI300X = Peaks(gbps=5_300.0, gflops={"fp64": 163_400.0, "fp32": 163_400.0, "fp16": 1_307_400.0,
                                     "bf16": 1_307_400.0, "fp8": 2_614_900.0, "int8": 2_614_900.0})
# NVIDIA H100 SXM5 data sheet, dense (the sheet's tensor figures halved where it quotes sparsity):
# HBM3 3.35 TB/s; fp32 67 TFLOPS (CUDA cores; TF32 is not fp32), fp64 tensor 67 TFLOPS.
H100_SXM = Peaks(gbps=3_350.0, gflops={"fp64": 67_000.0, "fp32": 67_000.0, "fp16": 989_400.0, "bf16": 989_400.0,
                                       "fp8": 1_978_900.0, "int8": 1_978_900.0})
# A workstation-class CPU, erring high, for a host pool nobody measured (`manage.py measure_peaks`).
HOST_DEFAULT = Peaks(gbps=100.0, gflops={"fp32": 2_000.0})
# A GPU benchmark or ranked case takes at least this long at MI300X's speed of light, or its problem
# says why not (Case.short): below it a case times the launch and the clocks, not the kernel.
MIN_GPU_CASE_US = 20.0
DEFAULT_PEAKS = {"hip": MI300X, "cuda": H100_SXM, "host": HOST_DEFAULT}


@dataclass(frozen=True)
class Floor:
    floor_ms: float
    bound: str  # "compute" | "memory": which of the two limits sets the floor
    peak_type: str  # the flops_type whose compute peak was used

    def percent_of(self, time_ms: float) -> float | None:
        """The time as a percentage of the speed of light: 100 would be the floor itself."""
        if not (time_ms > 0 and math.isfinite(time_ms)):
            return None
        return 100.0 * self.floor_ms / time_ms


def flops_type_of(definition: Mapping[str, Any] | None) -> str:
    """A problem definition's flops_type, fp32 when it names none (or none known)."""
    value = (definition or {}).get("flops_type", DEFAULT_FLOPS_TYPE)
    return value if value in FLOPS_TYPES else DEFAULT_FLOPS_TYPE


def floor(*, flops: float, nbytes: float, flops_type: str, peaks: Peaks) -> Floor | None:
    """The least time (ms) work of `flops` in `flops_type` moving `nbytes` can take; None when there
    is no work to bound (nothing computed and nothing moved)."""
    compute_ms = max(0.0, flops) / (peaks.compute(flops_type) * 1e9) * 1e3
    memory_ms = max(0.0, nbytes) / (peaks.gbps * 1e9) * 1e3
    if not (compute_ms > 0 or memory_ms > 0) or not math.isfinite(compute_ms + memory_ms):
        return None
    if compute_ms > memory_ms:
        return Floor(compute_ms, "compute", flops_type)
    return Floor(memory_ms, "memory", flops_type)


def speed_of_light(*, flops: float, nbytes: float, time_ms: float, flops_type: str,
                   peaks: Peaks) -> dict[str, Any] | None:
    """What the API shows for one time: {floor_ms, percent, peak_type, bound}; None when unknown."""
    found = floor(flops=flops, nbytes=nbytes, flops_type=flops_type, peaks=peaks)
    percent = found.percent_of(time_ms) if found else None
    if found is None or percent is None:
        return None
    return {"floor_ms": found.floor_ms, "percent": percent, "peak_type": found.peak_type, "bound": found.bound}


def geometric_floor(floors: list[Floor]) -> Floor | None:
    """The floor of a score that is the geometric mean of cases' times: the geometric mean of their
    floors (so the score's percentage is the geometric mean of the cases' percentages). Its bound
    is the cases' own when they agree, else "mixed"."""
    if not floors:
        return None
    value = math.exp(sum(math.log(f.floor_ms) for f in floors) / len(floors))
    bounds = {f.bound for f in floors}
    return Floor(value, bounds.pop() if len(bounds) == 1 else "mixed", floors[0].peak_type)


def peaks_from(raw: Any) -> Peaks | None:
    """Peaks from their JSON form {gbps, gflops: {type: value}} (as measured or stored); None when
    the form is wrong."""
    if not isinstance(raw, Mapping):
        return None
    gbps, gflops = raw.get("gbps"), raw.get("gflops")
    if not isinstance(gflops, Mapping) or not _positive(gflops.get(DEFAULT_FLOPS_TYPE)) or not _positive(gbps):
        return None
    assert isinstance(gbps, int | float)
    return Peaks(gbps=float(gbps), gflops={k: float(v) for k, v in gflops.items() if k in FLOPS_TYPES
                                            and _positive(v)})


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0

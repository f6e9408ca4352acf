"""The speed of light: the roofline floor per type, problem.yaml's flops_type, and the agent's
plausibility bound taking the type's peak (an honest fp8 GEMM is not a broken measurement)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent.judging.timing_checks import gflops_ceiling, implausible
from agent.problems.bundle import ProblemError, load_problem_dir, parse_definition
from agent.problems.roofline import (
    FLOPS_TYPES,
    H100_SXM,
    HOST_DEFAULT,
    MI300X,
    Floor,
    Peaks,
    floor,
    flops_type_of,
    geometric_floor,
    peaks_from,
    speed_of_light,
)

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"
GEMM = 2 * 8192**3  # FLOPs of an 8192^3 GEMM
GEMM_BYTES = 3 * 8192 * 8192  # fp8 A and B, ... (small against the compute)


def test_the_floor_is_the_compute_time_of_a_big_gemm_at_its_types_peak() -> None:
    found = floor(flops=GEMM, nbytes=GEMM_BYTES, flops_type="fp8", peaks=MI300X)
    assert found is not None
    assert found.bound == "compute"
    assert found.peak_type == "fp8"
    assert found.floor_ms == pytest.approx(GEMM / 2_614.9e12 * 1e3)
    bf16 = floor(flops=GEMM, nbytes=GEMM_BYTES, flops_type="bf16", peaks=MI300X)
    assert bf16 is not None
    assert bf16.floor_ms == pytest.approx(2 * found.floor_ms, rel=1e-3)


def test_the_floor_is_the_memory_time_of_a_streaming_kernel() -> None:
    n = 1 << 28
    found = floor(flops=n, nbytes=12 * n, flops_type="fp32", peaks=MI300X)
    assert found is not None
    assert found.bound == "memory"
    assert found.floor_ms == pytest.approx(12 * n / 5.3e12 * 1e3)


def test_percent_is_the_floor_over_the_time() -> None:
    said = speed_of_light(flops=GEMM, nbytes=0, time_ms=2.0, flops_type="fp16", peaks=MI300X)
    assert said is not None
    assert said["percent"] == pytest.approx(100 * said["floor_ms"] / 2.0)
    assert said == {"floor_ms": pytest.approx(GEMM / 1_307.4e12 * 1e3), "percent": pytest.approx(42.05, abs=0.01),
                    "peak_type": "fp16", "bound": "compute"}


def test_nothing_to_bound_and_no_time_give_no_speed_of_light() -> None:
    assert floor(flops=0, nbytes=0, flops_type="fp32", peaks=MI300X) is None
    assert speed_of_light(flops=10, nbytes=10, time_ms=0.0, flops_type="fp32", peaks=MI300X) is None
    assert speed_of_light(flops=10, nbytes=10, time_ms=float("nan"), flops_type="fp32", peaks=MI300X) is None


def test_a_type_the_table_lacks_runs_at_the_fp32_rate() -> None:
    host = Peaks(gbps=50.0, gflops={"fp32": 1_000.0})
    assert host.compute("bf16") == 1_000.0
    assert H100_SXM.compute("fp8") == 1_978_900.0
    assert H100_SXM.gbps == 3_350.0


def test_a_score_floor_is_the_geometric_mean_of_the_case_floors() -> None:
    mixed = geometric_floor([Floor(1.0, "memory", "bf16"), Floor(4.0, "compute", "bf16")])
    assert mixed is not None
    assert mixed.floor_ms == pytest.approx(2.0)
    assert mixed.bound == "mixed"
    same = geometric_floor([Floor(1.0, "memory", "fp32"), Floor(9.0, "memory", "fp32")])
    assert same is not None
    assert same.bound == "memory"
    assert same.floor_ms == pytest.approx(3.0)
    assert geometric_floor([]) is None


def test_peaks_come_back_from_their_json_form_and_bad_forms_are_refused() -> None:
    assert peaks_from(MI300X.as_dict()) == MI300X
    assert peaks_from({"gbps": 10, "gflops": {"fp32": 100, "fp8": -1, "tf99": 5}}) == Peaks(10.0, {"fp32": 100.0})
    for bad in (None, [], {"gbps": 0, "gflops": {"fp32": 1}}, {"gbps": 1, "gflops": {"bf16": 1}},
                {"gbps": True, "gflops": {"fp32": 1}}, {"gbps": 1, "gflops": "fp32"}):
        assert peaks_from(bad) is None


# ---- problem.yaml --------------------------------------------------------------------------------
def _definition(**extra: object) -> dict:
    return {"slug": "axpy", "title": "t", "difficulty": "easy",
            "signature": [{"name": "x", "type": "float", "pointer": True, "const": True, "shape": ["n"]},
                          {"name": "y", "type": "float", "pointer": True, "output": True, "shape": ["n"]},
                          {"name": "n", "type": "size_t"}],
            "tests": [{"name": "t", "devices": ["host", "gpu"], "params": {"n": 4}}],
            "benchmarks": [{"name": "b", "devices": ["host", "gpu"], "params": {"n": 8}}],
            "check": {"rtol": 1e-6, "atol": 0}, "flops": "n", "bytes": "8 * n", **extra}


def test_flops_type_defaults_to_fp32_and_takes_every_known_type() -> None:
    assert parse_definition(_definition(), "x = 1").flops_type == "fp32"
    for kind in FLOPS_TYPES:
        assert parse_definition(_definition(flops_type=kind), "x = 1").flops_type == kind


@pytest.mark.parametrize("bad", ["fp4", "FP8", 8, ["bf16"], True, ""])
def test_an_unknown_flops_type_names_the_field(bad: object) -> None:
    with pytest.raises(ProblemError,
                       match=r"^flops_type: .* is not one of fp64, fp32, fp32_emulated, fp16, bf16, fp8, int8"):
        parse_definition(_definition(flops_type=bad), "x = 1")


def test_flops_type_of_a_stored_definition_falls_back_to_fp32() -> None:
    assert flops_type_of({"flops_type": "fp8"}) == "fp8"
    assert flops_type_of({}) == flops_type_of(None) == flops_type_of({"flops_type": "fp4"}) == "fp32"


# The matrix work of these runs on MI300X's low-precision matrix cores; every other problem is fp32.
CATALOGUE_TYPES = {
    "attention-swa-sinks-bf16": "bf16", "attention-varlen-bf16": "bf16",
    "conv2d-nhwc-fp16": "fp16", "flash-attention-fwd": "bf16", "flash-attention-fwd-lse": "bf16",
    "flash-attention-bwd-bf16": "bf16",
    "gemm-batched-bf16": "bf16", "gemm-bf16": "bf16",
    "fused-moe-bf16": "bf16",
    "gemm-bias-gelu-bf16": "bf16", "gemm-bf16-nt": "bf16", "gemm-fp16-nn": "fp16", "gemm-fp16-nt": "fp16",
    "gemm-residual-bf16": "bf16",
    "deepseek-v3-router": "bf16",
    "gemm-fp8": "fp8", "gemm-fp8-blockwise": "fp8", "gemm-int8": "int8", "gemm-w8a8-scaled": "int8",
    "gemm-fp8-blockwise-grouped": "fp8", "mla-decode-fp8": "bf16",
    "gemv-w4a16": "fp16", "gemv-w4a16-zp": "fp16", "linear-cross-entropy": "bf16", "mla-decode": "bf16",
    "moe-grouped-gemm": "bf16", "matmul-fp32": "fp32_emulated", "paged-gqa-decode-bf16": "bf16",
    "paged-gqa-decode-fp8kv": "bf16", "ssd-chunked-scan": "fp32_emulated"}


def test_every_catalogue_problem_names_the_type_its_work_runs_in() -> None:
    for folder in sorted(PROBLEMS.iterdir()):
        if (folder / "problem.yaml").is_file():
            raw = yaml.safe_load((folder / "problem.yaml").read_text())
            assert raw.get("flops_type", "fp32") == CATALOGUE_TYPES.get(folder.name, "fp32"), folder.name
    assert load_problem_dir(PROBLEMS / "gemm-fp8").flops_type == "fp8"


# ---- the agent's plausibility bound ----------------------------------------------------------------
def _ms_at(flops: float, gflops: float) -> float:
    return flops / (gflops * 1e9) * 1e3


def test_an_fp8_gemm_at_60_percent_of_mi300x_is_plausible() -> None:
    at_60 = _ms_at(GEMM, 0.6 * MI300X.compute("fp8"))
    assert implausible("hip", at_60, GEMM_BYTES, GEMM, flops_type="fp8") is None
    # The fp32 ceiling alone would have refused it: that was the bug.
    assert "beyond any hip device" in str(implausible("hip", at_60, GEMM_BYTES, GEMM, flops_type="fp32"))


def test_an_fp8_gemm_at_3x_the_peak_is_refused() -> None:
    said = implausible("hip", _ms_at(GEMM, 3 * MI300X.compute("fp8")), GEMM_BYTES, GEMM, flops_type="fp8")
    assert said is not None
    assert "GFLOPS in fp8, beyond any hip device" in said


def test_bf16_and_int8_on_cuda_take_their_own_peaks() -> None:
    for kind in ("bf16", "int8"):
        honest = _ms_at(GEMM, 0.8 * H100_SXM.compute(kind))
        assert implausible("cuda", honest, GEMM_BYTES, GEMM, flops_type=kind) is None
        assert implausible("cuda", _ms_at(GEMM, 3 * H100_SXM.compute(kind)), GEMM_BYTES, GEMM,
                           flops_type=kind) is not None


def test_the_fp32_ceilings_are_what_they_were_and_an_override_keeps_the_ratios() -> None:
    assert gflops_ceiling("hip") == 350_000.0
    assert gflops_ceiling("host", "fp64") == 20_000.0
    assert gflops_ceiling("hip", "fp8") > 2.5 * 2_614_000
    assert gflops_ceiling("hip", "fp32", override=100.0) == 100.0
    assert gflops_ceiling("hip", "fp8", override=100.0) == pytest.approx(100.0 * gflops_ceiling("hip", "fp8")
                                                                          / 350_000.0)


def test_an_fp32_gemm_emulated_with_three_bf16_products_is_within_the_speed_of_light() -> None:
    """matmul-fp32 allows bf16x3 emulation (its problem.yaml says why): such a kernel at 95 % of its
    rate on MI300X (about 415 TFLOPS) is no broken measurement and no more than 100 % of the floor."""
    rate = MI300X.compute("bf16") / 3
    assert MI300X.compute("fp32_emulated") == rate > MI300X.compute("fp32")
    at_95 = _ms_at(GEMM, 0.95 * rate)
    assert implausible("hip", at_95, GEMM_BYTES, GEMM, flops_type="fp32_emulated") is None
    found = floor(flops=GEMM, nbytes=GEMM_BYTES, flops_type="fp32_emulated", peaks=MI300X)
    assert found is not None and found.percent_of(at_95) == pytest.approx(95.0)
    assert HOST_DEFAULT.compute("fp32_emulated") == HOST_DEFAULT.compute("fp32")  # no matrix cores: fp32

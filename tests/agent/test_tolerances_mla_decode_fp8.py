"""mla-decode-fp8's check rule (derived in its problem.yaml, as mla-decode's): the bound recomputed
on every case the problem judges, with the input properties it rests on (q . c8 exact in float32,
kv_scale a power of two that keeps |c| <= 1); float32 kernels that apply kv_scale in the usual
places (to every cached value, or to q . c8 and the output once) pass; the cache decoded as OCP
E4M3 (wrong.cpp) and kv_scale left off the values (wrong.py) are refused."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from agent.judging.verify import compare
from agent.problems.bundle import Case, Problem
from tests.agent.conftest import load_problem
from tests.agent.test_tolerances_gemm_attention_moe import attention_bound, online_softmax

F32 = np.float32
SLUG = "mla-decode-fp8"


def every_case(problem: Problem) -> list[Case]:
    return [*problem.tests, *problem.benchmarks, *problem.ranked]


def passes(problem: Problem, case: Case, inputs: dict[str, np.ndarray], out: np.ndarray) -> bool:
    want = problem.expected(case, inputs)["out"]
    return compare("out", np.asarray(out).astype(want.dtype), want, problem.tolerance) is None


def test_the_bound_and_its_input_properties_hold_on_every_case() -> None:
    problem = load_problem(SLUG)
    module = problem.module
    codes = module.fp8_codes(module.FP8_MAX).view(ml_dtypes.float8_e4m3fnuz).astype(np.float64)
    assert np.abs(codes).max() == module.FP8_MAX and np.all(codes * 8 == np.round(codes * 8))
    # q . c8: products of multiples of 2^-7 (|q| <= 2) and 2^-3, sums of 576 of them below 2^24 units.
    assert 576 * 2 * module.FP8_MAX * 2**10 <= 2**24
    for case in every_case(problem):
        P, scale, kv_scale = case.params["P"], case.params["scale"], case.params["kv_scale"]
        assert scale <= 0.14, case.name
        assert 64 * P <= 8192, case.name
        assert math.frexp(kv_scale)[0] == 0.5 and float(F32(kv_scale)) == kv_scale, case.name  # a power of two
        assert module.FP8_MAX * kv_scale <= 1, case.name  # |c| <= 1
        assert attention_bound(64 * P, 0.14 * 2 * 576, merge=2) <= problem.tolerance.atol, case.name


def kernels(problem: Problem, case: Case, inputs: dict[str, np.ndarray],
            decode: object = None) -> tuple[np.ndarray, np.ndarray]:
    """Two float32 kernels: the cache dequantized first (kv_scale c8, exact in bfloat16), and q . c8
    scaled by scale * kv_scale with kv_scale on the output once. `decode` replaces the fp8 decoding."""
    B, H = case.params["B"], case.params["H"]
    scale, kv_scale = F32(case.params["scale"]), F32(case.params["kv_scale"])
    first = np.empty((B, H, 512), dtype=F32)
    once = np.empty((B, H, 512), dtype=F32)
    for b in range(B):
        n = int(inputs["seq_lens"][b])
        raw = inputs["kv_cache"][inputs["block_table"][b]].reshape(-1, 576)[:n]
        c8 = decode(raw) if decode is not None else raw.astype(F32)  # type: ignore[operator]
        c = (c8 * kv_scale).astype(ml_dtypes.bfloat16)
        visible = np.ones((H, n), dtype=bool)
        first[b] = online_softmax(inputs["q"][b], c, c[:, :512], float(scale), visible, 64)
        once[b] = online_softmax(inputs["q"][b], c8.astype(ml_dtypes.bfloat16), c8[:, :512].astype(ml_dtypes.bfloat16),
                                 float(scale * kv_scale), visible, 32) * kv_scale
    return first, once


def ocp_e4m3(raw: np.ndarray) -> np.ndarray:
    return np.asarray(raw).view(np.uint8).view(ml_dtypes.float8_e4m3fn).astype(F32)


def test_honest_kernels_pass_and_the_wrong_ones_are_refused() -> None:
    problem = load_problem(SLUG)
    for name in ("b3-h16-p3", "b5-h20-p2"):
        case = next(c for c in every_case(problem) if c.name == name)
        inputs = problem.generate(case, np.random.default_rng(11))
        first, once = kernels(problem, case, inputs)
        assert passes(problem, case, inputs, first), name
        assert passes(problem, case, inputs, once), name
        assert not passes(problem, case, inputs, once / F32(case.params["kv_scale"])), name  # wrong.py
        doubled, _ = kernels(problem, case, inputs, decode=ocp_e4m3)  # wrong.cpp
        assert not passes(problem, case, inputs, doubled), name


def test_the_pages_and_lengths_stay_and_every_draw_holds_the_work_its_formulas_count() -> None:
    """As mla-decode's (tests/agent/test_benchmark_cases.py): the benchmark keeps the block table and
    the lengths, and every draw holds B (64 P + 1) / 2 tokens (half a token less with B odd)."""
    problem = load_problem(SLUG)
    assert {"block_table", "seq_lens"} <= problem.kept_inputs
    for B, P in ((2, 1), (3, 2), (9, 3), (64, 2)):
        case = Case("draw", ("gpu",), {"B": B, "H": 1, "P": P, "scale": 0.1352, "kv_scale": 0.0625})
        for seed in range(3):
            lengths = problem.generate(case, np.random.default_rng(seed))["seq_lens"]
            assert abs(int(lengths.sum()) - B * (64 * P + 1) / 2) <= 0.5
            assert 1 <= lengths.min() and lengths.max() <= 64 * P

"""gemm-fp8-blockwise-grouped's exact check (derived in its problem.yaml): the bound recomputed on
every case the problem judges, float32 kernels summing in the usual orders (dequantize first and a
left-to-right sum; an MFMA kernel's per-block partial sums scaled and added; masked rows of other
experts in a shared tile) equal the reference bit for bit, and the cheaper or misread kernels are
refused: a per-tensor fp8 requantization (wrong.py), W_scale read transposed (wrong.cpp), one scale
per row, a tile's expert taken from its first row."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from agent.judging.verify import compare
from agent.problems.bundle import Case, Problem
from tests.agent.conftest import load_problem

F32 = np.float32
SLUG = "gemm-fp8-blockwise-grouped"


def every_case(problem: Problem) -> list[Case]:
    return [*problem.tests, *problem.benchmarks, *problem.ranked]


def passes(problem: Problem, case: Case, inputs: dict[str, np.ndarray], y: np.ndarray) -> bool:
    want = problem.expected(case, inputs)["Y"]
    return compare("Y", np.asarray(y).astype(want.dtype), want, problem.tolerance) is None


def draw(problem: Problem, params: dict[str, int]) -> tuple[Case, dict[str, np.ndarray]]:
    case = Case("probe", ("host",), params)
    return case, problem.generate(case, np.random.default_rng(11))


def dequantized(inputs: dict[str, np.ndarray], R: int, N: int, K: int,
                w_scale_transposed: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """x sx ([R, K]) and every expert's w sw ([E, N, K]) in float32 (exact: 6 significant bits)."""
    sx = np.repeat(inputs["X_scale"], 128, axis=0)[:K].T
    ws = inputs["W_scale"]  # [E, N/128, K/128]
    if w_scale_transposed:  # wrong.cpp: each expert's scales read as [K/128][N/128]
        ws = ws.reshape(ws.shape[0], ws.shape[2], ws.shape[1]).transpose(0, 2, 1)
    sw = np.repeat(np.repeat(ws, 128, axis=1)[:, :N], 128, axis=2)[:, :, :K]
    return inputs["X"].astype(F32) * sx, inputs["W"].astype(F32) * sw


def grouped(x: np.ndarray, w: np.ndarray, ids: np.ndarray) -> np.ndarray:
    return np.einsum("rk,rnk->rn", x, w[ids], dtype=F32)


def test_every_case_sums_exactly_and_the_rule_is_exact() -> None:
    problem = load_problem(SLUG)
    module = problem.module
    assert problem.tolerance.exact
    for case in every_case(problem):
        assert module.exact_up_to(case.params["K"]), case.name
        assert case.params["K"] * module.LARGEST**2 * 9 <= 2**24, case.name  # 2^-8 units: 225 x 9
    assert module.SCALES == (1.0, 1.5) and module.LARGEST == 15


def test_float32_orders_and_masked_tiles_equal_the_reference() -> None:
    problem = load_problem(SLUG)
    for name in ("r100-n200-k300-e8", "r300-n130-k256-e8-shuffled"):
        case = next(c for c in every_case(problem) if c.name == name)
        inputs = problem.generate(case, np.random.default_rng(5))
        R, N, K = (case.params[k] for k in ("R", "N", "K"))
        ids = inputs["expert_ids"]
        x, w = dequantized(inputs, R, N, K)
        left_to_right = np.zeros((R, N), dtype=F32)
        for k in range(K):  # dequantize first, then one term at a time
            left_to_right += x[:, k][:, None] * w[ids, :, k]
        assert passes(problem, case, inputs, left_to_right), name
        # An MFMA kernel's order: per 32-row tile and expert, the rows of other experts zeroed; per
        # 128-deep block, the exact partial sums of x w scaled by sx sw and added.
        xq, wq = inputs["X"].astype(F32), inputs["W"].astype(F32)
        blocked = np.zeros((R, N), dtype=F32)
        for r0 in range(0, R, 32):
            tile = ids[r0 : r0 + 32]
            for e in np.unique(tile):
                mine = np.where(tile == e, F32(1), F32(0))[:, None]
                sw = np.repeat(inputs["W_scale"][e], 128, axis=0)[:N]  # [N, K/128]
                for kb in range(-(-K // 128)):
                    ks = slice(kb * 128, (kb + 1) * 128)
                    part = (xq[r0 : r0 + 32, ks] * mine) @ wq[e][:, ks].T
                    blocked[r0 : r0 + 32] += part * (inputs["X_scale"][kb, r0 : r0 + 32][:, None] * sw[:, kb][None, :])
        assert passes(problem, case, inputs, blocked), name
        assert np.array_equal(blocked, left_to_right), name


def per_tensor_requantized(v: np.ndarray) -> np.ndarray:
    """One scale for the whole tensor, its largest value onto fp8's largest (240)."""
    scale = F32(np.abs(v).max() / F32(240))
    return (v / scale).astype(ml_dtypes.float8_e4m3fnuz).astype(F32) * scale


def test_cheaper_and_misread_kernels_are_refused() -> None:
    problem = load_problem(SLUG)
    # DeepSeek-V3's down projection's K with few rows, and a test's partial blocks.
    for params in ({"R": 24, "N": 256, "K": 2048, "E": 3}, {"R": 100, "N": 200, "K": 300, "E": 8}):
        case, inputs = draw(problem, params)
        R, N, K = params["R"], params["N"], params["K"]
        ids = inputs["expert_ids"]
        x, w = dequantized(inputs, R, N, K)
        assert passes(problem, case, inputs, grouped(x, w, ids))
        # wrong.py: the dequantized values requantized to fp8, one scale per tensor (1, or the
        # largest onto 240): their 6-bit values lose bits.
        unit = grouped(x.astype(ml_dtypes.float8_e4m3fnuz).astype(F32),
                       w.astype(ml_dtypes.float8_e4m3fnuz).astype(F32), ids)
        assert not passes(problem, case, inputs, unit)
        assert not passes(problem, case, inputs, grouped(per_tensor_requantized(x), per_tensor_requantized(w), ids))
        # wrong.cpp: each expert's W_scale read as [K/128][N/128].
        _, w_t = dequantized(inputs, R, N, K, w_scale_transposed=True)
        assert not passes(problem, case, inputs, grouped(x, w_t, ids))
        # One scale per row (block 0's for every k).
        x_row = inputs["X"].astype(F32) * inputs["X_scale"][0][:, None]
        assert not passes(problem, case, inputs, grouped(x_row, w, ids))
        # A 32-row tile's expert taken from its first row.
        assert not passes(problem, case, inputs, grouped(x, w, ids[np.arange(R) // 32 * 32]))


def test_the_benchmark_keeps_the_rows_experts() -> None:
    """As moe-grouped-gemm's (tests/agent/test_benchmark_cases.py): the benchmark's changed elements
    leave expert_ids as generated, so it times grouped rows."""
    assert "expert_ids" in load_problem(SLUG).kept_inputs

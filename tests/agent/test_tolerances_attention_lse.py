"""flash-attention-fwd-lse's check rule (problem.yaml's derivation) holds on every case for both
outputs, a float32 kernel with bfloat16 P (its row sum from the rounded P, the looser form) passes
on O and LSE, and one that stores the base-2 log-sum-exp does not."""

from __future__ import annotations

import math

import numpy as np

from tests.agent.conftest import load_problem
from tests.agent.test_tolerances_gemm_attention_moe import (
    BF16,
    BF16_RN,
    F32,
    U,
    attention_bound,
    case_named,
    every_case,
    gamma,
    passes,
)

LN2 = F32(math.log(2))


def lse_bound(n: int, smax: float) -> float:
    """problem.yaml's |LSE32 - LSE|: l off by O's per-term eps and the rescaling factors' own errors
    (n exps of a few ulps, arguments that add up to at most 2 smax), its log, then a few u |LSE|."""
    eps = (1 + (7 * smax + 2) * U) * (1 + BF16_RN) * (1 + gamma(2 * n)) - 1
    eps_l = (1 + eps) * (1 + (8 * smax + 2 * n) * U) - 1
    return -math.log(1 - eps_l) + 8 * U * (smax + math.log(n) + 1)


def base2_kernel(q: np.ndarray, k: np.ndarray, v: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """An online softmax in base 2 over key blocks (no mask), P rounded to bfloat16 for P V and for l;
    returns O and the base-2 log-sum-exp m2 + log2(l)."""
    scale = F32(math.log2(math.e) / math.sqrt(q.shape[1]))
    m = np.full(q.shape[0], -np.inf, dtype=F32)
    row_sum = np.zeros(q.shape[0], dtype=F32)
    o = np.zeros((q.shape[0], v.shape[1]), dtype=F32)
    for k0 in range(0, k.shape[0], block):
        s = (q.astype(F32) @ k[k0 : k0 + block].astype(F32).T) * scale
        m_new = np.maximum(m, s.max(axis=1))
        alpha = np.exp2(m - m_new).astype(F32)
        p = np.exp2(s - m_new[:, None]).astype(F32).astype(BF16).astype(F32)
        row_sum = row_sum * alpha + p.sum(axis=1, dtype=F32)
        o = o * alpha[:, None] + p @ v[k0 : k0 + block].astype(F32)
        m = m_new
    return o / row_sum[:, None], (m + np.log2(row_sum)).astype(F32)


def test_lse_and_output_bounds_hold_on_every_case() -> None:
    problem = load_problem("flash-attention-fwd-lse")
    assert problem.tolerance.ulps == 2
    for case in every_case(problem):
        S, D, H, Hkv = (int(case.params[k]) for k in ("S", "D", "H", "Hkv"))
        assert D in (64, 128) and H % Hkv == 0 and S <= 8192, case.name
        assert attention_bound(S, 8 * math.sqrt(D)) <= problem.tolerance.atol, case.name
        assert lse_bound(S, 8 * math.sqrt(D)) <= problem.tolerance.atol, case.name


def test_a_bf16_p_kernel_passes_and_a_base2_lse_is_refused() -> None:
    problem = load_problem("flash-attention-fwd-lse")
    case, inputs = case_named(problem, "b1-s130-h2-kv2-d128")
    S, D = int(case.params["S"]), int(case.params["D"])
    out = np.empty((1, S, 2, D), dtype=F32)
    lse2 = np.empty((1, 2, S), dtype=F32)
    for h in range(2):
        out[0, :, h], lse2[0, h] = base2_kernel(inputs["Q"][0, :, h], inputs["K"][0, :, h], inputs["V"][0, :, h], 32)
    assert passes(problem, case, inputs, {"O": out, "LSE": lse2 * LN2})
    assert not passes(problem, case, inputs, {"O": out, "LSE": lse2})
    want = problem.expected(case, inputs)["LSE"].astype(np.float64)
    assert np.abs(lse2 * LN2 - want).max() <= lse_bound(S, 8 * math.sqrt(D))

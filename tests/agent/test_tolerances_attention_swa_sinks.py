"""attention-swa-sinks-bf16's check rule (problem.yaml's derivation) holds on every case, the flops
formula counts the window's visible pairs, a float32 kernel with bfloat16 P that adds the sink at
the end passes, and a window one key too wide or a sink scaled like a score does not."""

from __future__ import annotations

import math

import numpy as np

from tests.agent.conftest import load_problem
from tests.agent.test_tolerances_gemm_attention_moe import (
    BF16,
    BF16_RN,
    F32,
    U,
    case_named,
    every_case,
    gamma,
    passes,
)

SLUG = "attention-swa-sinks-bf16"
LOG2E = math.log2(math.e)


def sink_bound(n: int, smax: float) -> float:
    """problem.yaml's |O32 - O| for max|v| = 1: n key terms and the sink's, n + 1 additions and
    rescalings."""
    eps = (1 + (7 * smax + 2) * U) * (1 + BF16_RN) * (1 + gamma(2 * (n + 1))) - 1
    return 2 * eps / (1 - eps) + U


def test_bound_holds_on_every_case_and_flops_count_the_window() -> None:
    problem = load_problem(SLUG)
    assert problem.tolerance.ulps == 2
    for case in every_case(problem):
        B, S, H, Hkv, D, W = (int(case.params[k]) for k in ("B", "S", "H", "Hkv", "D", "W"))
        assert D in (64, 128) and H % Hkv == 0 and W >= 1, case.name
        n = min(W, S)
        assert n + 1 <= 8192 and 8 <= 8 * math.sqrt(D), case.name  # |sink| <= 8 <= Smax
        assert sink_bound(n, 8 * math.sqrt(D)) <= problem.tolerance.atol, case.name
        pairs = sum(min(i + 1, W) for i in range(S))
        assert problem.flop_count(case) == 4 * B * H * D * pairs, case.name


def kernel(q: np.ndarray, k: np.ndarray, v: np.ndarray, sink: float, W: int, block: int, *,
           sink_scale: float = LOG2E) -> np.ndarray:
    """One head as a kernel computes it: float32 scores, exp2 with a running maximum over key blocks
    (exponentials against 0 while a row has seen no key), P rounded to bfloat16 for P V, l from the
    float32 P, the sink added at the end after rescaling to max(m, sink)."""
    S, D = q.shape
    i = np.arange(S)[:, None]
    m = np.full(S, -np.inf, dtype=F32)
    row_sum = np.zeros(S, dtype=F32)
    o = np.zeros((S, v.shape[1]), dtype=F32)
    for k0 in range(0, S, block):
        j = np.arange(k0, min(S, k0 + block))[None, :]
        s = (q.astype(F32) @ k[k0 : k0 + block].astype(F32).T) * F32(LOG2E / math.sqrt(D))
        s = np.where((j <= i) & (j > i - W), s, -np.inf).astype(F32)
        m_new = np.maximum(m, s.max(axis=1))
        ref = np.where(m_new == -np.inf, F32(0), m_new).astype(F32)
        with np.errstate(invalid="ignore"):
            alpha = np.exp2(m - ref).astype(F32)
        p = np.exp2(s - ref[:, None]).astype(F32)
        row_sum = row_sum * alpha + p.sum(axis=1, dtype=F32)
        o = o * alpha[:, None] + p.astype(BF16).astype(F32) @ v[k0 : k0 + block].astype(F32)
        m = m_new
    s2 = F32(sink * sink_scale)
    m_f = np.maximum(m, s2)
    rescale = np.exp2(m - m_f).astype(F32)
    return o * (rescale / (row_sum * rescale + np.exp2(s2 - m_f).astype(F32)))[:, None]


def run(inputs: dict[str, np.ndarray], params: dict, sink_scale: float = LOG2E) -> np.ndarray:
    B, S, H, Hkv, D, W = (int(params[k]) for k in ("B", "S", "H", "Hkv", "D", "W"))
    out = np.empty((B, S, H, D), dtype=F32)
    for b in range(B):
        for h in range(H):
            g = h // (H // Hkv)
            out[b, :, h] = kernel(inputs["Q"][b, :, h], inputs["K"][b, :, g], inputs["V"][b, :, g],
                                  float(inputs["sinks"][h]), W, 32, sink_scale=sink_scale)
    return out


def test_a_bf16_p_kernel_passes_and_the_plausible_bugs_are_refused() -> None:
    problem = load_problem(SLUG)
    for name in ("b1-s192-h8-kv1-d64-w128", "b2-s37-h4-kv2-d64-w4", "b1-s5-h2-kv1-d64-w1"):
        case, inputs = case_named(problem, name)
        assert passes(problem, case, inputs, {"O": run(inputs, case.params)}), name
        wide = dict(case.params, W=int(case.params["W"]) + 1)
        assert not passes(problem, case, inputs, {"O": run(inputs, wide)}), name
        scaled = run(inputs, case.params, sink_scale=LOG2E / math.sqrt(int(case.params["D"])))
        assert not passes(problem, case, inputs, {"O": scaled}), name

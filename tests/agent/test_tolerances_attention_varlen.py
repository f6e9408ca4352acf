"""attention-varlen-bf16's check rule (problem.yaml's derivation) holds on every case, the flops
formula counts the visible (query, key) pairs of every draw exactly, a float32 kernel with bfloat16 P
passes, and one that aligns the causal mask at the top left does not."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.agent.conftest import load_problem
from tests.agent.test_tolerances_gemm_attention_moe import (
    F32,
    attention_bound,
    case_named,
    every_case,
    online_softmax,
    passes,
)

SLUG = "attention-varlen-bf16"
MIX = ("Nd", "Cd", "Nw", "Lw", "Nc", "Lc", "Cc")


def most_keys(params: dict) -> int:
    """The most keys a query sees on any draw: a decode's context reaches 2 Cd, a chunk's 2 Cc, but the
    context of a lone decode or chunk is the mean (reference.contexts)."""
    Nd, Cd, Nw, Lw, Nc, Lc, Cc = (int(params[k]) for k in MIX)
    return max(1 + (2 * Cd if Nd > 1 else Cd) if Nd else 0, Lw if Nw else 0,
               Lc + (2 * Cc if Nc > 1 else Cc) if Nc else 0)


def test_bound_holds_on_every_case_and_the_sizes_agree_with_the_mix() -> None:
    problem = load_problem(SLUG)
    assert problem.tolerance.ulps == 2
    for case in every_case(problem):
        p = {k: int(v) for k, v in case.params.items()}
        Nd, Cd, Nw, Lw, Nc, Lc, Cc = (p[k] for k in MIX)
        assert (p["B"], p["Tq"]) == (Nd + Nw + Nc, Nd + Nw * Lw + Nc * Lc), case.name
        assert p["Tk"] == Nd * (Cd + 1) + Nw * Lw + Nc * (Lc + Cc), case.name
        assert p["D"] in (64, 128) and p["H"] % p["Hkv"] == 0, case.name
        if case.name in ("mixed-b4-h2-kv1-d64", "mixed-b7-h4-kv2-d64"):  # the longest context is drawn
            inputs = problem.generate(case, np.random.default_rng(0))
            assert np.diff(inputs["cu_seqlens_k"]).max() == most_keys(p), case.name
        n = most_keys(p)
        assert 1 <= n <= 8192, case.name
        assert attention_bound(n, 8 * math.sqrt(p["D"])) <= problem.tolerance.atol, case.name


def visible_pairs(cu_q: np.ndarray, cu_k: np.ndarray) -> int:
    q, k = np.diff(cu_q.astype(np.int64)), np.diff(cu_k.astype(np.int64))
    return int((q * k - q * (q - 1) // 2).sum())  # query i of q sees k - q + i + 1 keys


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_flops_count_the_visible_pairs_of_every_draw(seed: int) -> None:
    problem = load_problem(SLUG)
    for case in problem.tests:
        inputs = problem.generate(case, np.random.default_rng(seed))
        pairs = visible_pairs(inputs["cu_seqlens_q"], inputs["cu_seqlens_k"])
        H, D = int(case.params["H"]), int(case.params["D"])
        assert problem.flop_count(case) == 4 * H * D * pairs, case.name
        q = np.diff(inputs["cu_seqlens_q"])
        k = np.diff(inputs["cu_seqlens_k"])
        assert (k >= q).all() and (q >= 1).all(), case.name


def kernel(inputs: dict[str, np.ndarray], params: dict, *, top_left: bool = False) -> np.ndarray:
    """Every sequence and head through the online softmax (key blocks of 32, bfloat16 P), the mask
    aligned at the bottom right, or at the top left as FlashAttention before 2.1 (wrong.cpp)."""
    H, Hkv, D = (int(params[k]) for k in ("H", "Hkv", "D"))
    cu_q, cu_k = inputs["cu_seqlens_q"], inputs["cu_seqlens_k"]
    out = np.empty(inputs["Q"].shape, dtype=F32)
    for b in range(len(cu_q) - 1):
        q0, q1, k0, k1 = int(cu_q[b]), int(cu_q[b + 1]), int(cu_k[b]), int(cu_k[b + 1])
        shift = 0 if top_left else (k1 - k0) - (q1 - q0)
        visible = np.arange(k1 - k0)[None, :] <= np.arange(q1 - q0)[:, None] + shift
        for h in range(H):
            g = h // (H // Hkv)
            out[q0:q1, h] = online_softmax(inputs["Q"][q0:q1, h], inputs["K"][k0:k1, g], inputs["V"][k0:k1, g],
                                           1 / math.sqrt(D), visible, 32)
    return out


def test_a_bf16_p_kernel_passes_and_a_top_left_mask_is_refused() -> None:
    problem = load_problem(SLUG)
    case, inputs = case_named(problem, "mixed-b7-h4-kv2-d64")
    assert passes(problem, case, inputs, {"O": kernel(inputs, case.params)})
    assert not passes(problem, case, inputs, {"O": kernel(inputs, case.params, top_left=True)})

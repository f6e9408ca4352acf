"""flash-attention-bwd-bf16's check rule (problem.yaml's derivation): on every case, a float32
kernel's relative error bound eps, with two bfloat16 roundings on the way to dS (P, then dS computed
from the rounded P), keeps 1.5 + 256 eps / (1 - eps) below 4 (so its bfloat16 outputs are within
three ulps of the reference's); the generator keeps every term of every sum >= 0 (the bound's premise)
and q.k, dP, D_i exact; a float32 kernel that rounds P and dS to bfloat16, in base 2, dS from the
float32 P or from the bfloat16 P, passes and stays within the bound; forgetting the -D_i term or
reading LSE as a base-2 log is refused."""

from __future__ import annotations

import math

import numpy as np

from tests.agent.conftest import load_problem
from tests.agent.test_tolerances_gemm_attention_moe import BF16, F32, U, case_named, every_case, gamma, passes

SLUG = "flash-attention-bwd-bf16"
LOG2E = math.log2(math.e)


def relative_bound(S: int, D: int) -> float:
    """problem.yaml's eps: P's exponent and exp (eps_e), P and then dS in bfloat16 (8 significant
    bits: a relative 2^-8 each, two roundings on dS's path), four roundings, the sum."""
    smax = 16 * math.sqrt(D)
    lmax = smax + math.log(S)
    eps_e = (4 * (smax + lmax) + 4) * U
    return (1 + eps_e) * (1 + 2.0**-8) ** 2 * (1 + U) ** 4 * (1 + gamma(S)) - 1


def kernel(inputs: dict[str, np.ndarray], b: int, h: int, *, ds_from_bf16_p: bool = False,
           forget_delta: bool = False, base2_lse: bool = False) -> dict[str, np.ndarray]:
    """One (batch, head) as a FlashAttention-2 kernel computes it: float32 scores, exp2 with the
    scale and LSE in base 2, P and dS rounded to bfloat16 for the products, float32 sums; dS from
    the float32 P, or (ds_from_bf16_p) from the bfloat16 P made for the dV product."""
    q, k, v, o, do = (inputs[name][b, :, h, :].astype(F32) for name in ("Q", "K", "V", "O", "dO"))
    S, D = q.shape
    scale = F32(1 / math.sqrt(D))
    lse2 = inputs["LSE"][b, h, :].astype(F32) * (F32(1) if base2_lse else F32(LOG2E))
    causal = np.tril(np.ones((S, S), dtype=bool))
    t = (q @ k.T) * F32(scale * F32(LOG2E)) - lse2[:, None]
    p = np.exp2(np.where(causal, t, -np.inf)).astype(F32)  # 0 above the diagonal
    delta = F32(0) if forget_delta else (do * o).sum(axis=1, dtype=F32)[:, None]
    pb = p.astype(BF16).astype(F32)
    ds = ((pb if ds_from_bf16_p else p) * ((do @ v.T) - delta)).astype(F32)
    dsb = ds.astype(BF16).astype(F32)
    return {"dV": pb.T @ do, "dK": (dsb.T @ q) * scale, "dQ": (dsb @ k) * scale}


def run(inputs: dict[str, np.ndarray], **bug: bool) -> dict[str, np.ndarray]:
    B, S, H, D = inputs["Q"].shape
    out = {name: np.empty((B, S, H, D), dtype=F32) for name in ("dQ", "dK", "dV")}
    for b in range(B):
        for h in range(H):
            for name, value in kernel(inputs, b, h, **bug).items():
                out[name][b, :, h, :] = value
    return out


def test_the_bound_holds_on_every_case() -> None:
    problem = load_problem(SLUG)
    assert problem.tolerance.ulps == 3 and problem.tolerance.atol == 0
    for case in every_case(problem):
        S, D = int(case.params["S"]), int(case.params["D"])
        assert D in (64, 128) and S <= 8192, case.name
        eps = relative_bound(S, D)
        # x in w's binade or above: ulp(x)/2 + eps |w| + ulp(w)/2 < 4 ulp(w), so at most 3 apart
        assert 1.5 + 256 * eps / (1 - eps) < 4, case.name
        # x a binade below w: under 3 ulp(w) even before rounding to multiples
        assert 0.25 + 128 * eps / (1 - eps) + 0.5 < 3, case.name
        # q.k: at most D products of at most 512 x 128 units of 2^-12; dP - D_i < 2^8 in units of 2^-16
        assert D * 512 * 128 <= 2**24 and 2**8 * 2**16 <= 2**24


def test_the_inputs_keep_every_term_nonnegative_and_the_sums_exact() -> None:
    problem = load_problem(SLUG)
    case, inputs = case_named(problem, "b2-s37-h3-d64")
    for name in ("Q", "K", "V", "dO"):
        assert (inputs[name].astype(F32) >= 0).all(), name
    assert (inputs["O"].astype(F32) <= 0).all()
    for name, step in (("Q", 2.0**-5), ("K", 2.0**-7), ("V", 2.0**-8), ("O", 2.0**-8), ("dO", 2.0**-8)):
        x = inputs[name].astype(np.float64) / step
        assert np.array_equal(x, np.rint(x)), name
    q, k = inputs["Q"].astype(np.float64), inputs["K"].astype(np.float64)
    s64 = np.einsum("bihd,bjhd->bhij", q, k)
    s32 = np.einsum("bihd,bjhd->bhij", q.astype(F32), k.astype(F32))
    assert np.array_equal(s64, s32)


def test_a_bf16_p_and_ds_kernel_passes_within_the_bound_and_the_bugs_are_refused() -> None:
    problem = load_problem(SLUG)
    case, inputs = case_named(problem, "b1-s130-h2-d128")
    S, D = int(case.params["S"]), int(case.params["D"])
    exact = problem.module.reference({name: x.copy() for name, x in inputs.items()}, dict(case.params))
    for ds_from_bf16_p in (False, True):
        got = run(inputs, ds_from_bf16_p=ds_from_bf16_p)
        assert passes(problem, case, inputs, got), ds_from_bf16_p
        for name in ("dQ", "dK", "dV"):
            want = exact[name]
            assert (want >= 0).all(), name
            assert (np.abs(got[name] - want) <= relative_bound(S, D) * want).all(), (name, ds_from_bf16_p)
    assert not passes(problem, case, inputs, run(inputs, forget_delta=True))
    assert not passes(problem, case, inputs, run(inputs, base2_lse=True))

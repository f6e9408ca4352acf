"""The check rules of the GEMM, attention and MoE problems, derived in their problem.yaml: each bound
recomputed from every case the problem judges (tests, benchmarks, ranked), and float32 kernels
written the ways people write them (a left-to-right sum; per-block partial sums then scaled; an
online softmax with P rounded to bfloat16; exps flushed below float32's normals) run on the
generator's inputs and judged by the judge's comparison."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from agent.judging.verify import compare
from agent.problems.bundle import Case, Problem
from tests.agent.conftest import load_problem

U = 2.0**-24  # float32's unit roundoff
BF16_RN = 2.0**-8  # bfloat16's unit roundoff (8 significant bits): P's rounding to nearest in attention
F32 = np.float32
BF16 = ml_dtypes.bfloat16


def every_case(problem: Problem) -> list[Case]:
    return [*problem.tests, *problem.benchmarks, *problem.ranked]


def gamma(n: int) -> float:
    return n * U / (1 - n * U)


def case_named(problem: Problem, name: str) -> tuple[Case, dict[str, np.ndarray]]:
    case = next(c for c in every_case(problem) if c.name == name)
    return case, problem.generate(case, np.random.default_rng(11))


def passes(problem: Problem, case: Case, inputs: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> bool:
    want = problem.expected(case, inputs)
    return all(compare(name, np.asarray(got[name]).astype(want[name].dtype), want[name], problem.tolerance) is None
               for name in want)


def left_to_right(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a (M x K) times b (K x N) in float32, k after k: the order a naive loop sums in."""
    acc = np.zeros((a.shape[0], b.shape[1]), dtype=F32)
    for k in range(a.shape[1]):
        acc += a[:, k : k + 1].astype(F32) * b[k].astype(F32)
    return acc


# ---- GEMMs on exact-sum grids --------------------------------------------------------------------

GRIDS = {"gemm-bf16": 8, "gemm-fp16-nn": 10, "gemm-fp16-nt": 10, "gemm-bf16-nt": 8, "gemm-batched-bf16": 8,
         "moe-grouped-gemm": 8}


@pytest.mark.parametrize("slug", sorted(GRIDS))
def test_every_float32_partial_sum_of_the_grid_gemms_is_exact_on_every_case(slug: str) -> None:
    problem, cap = load_problem(slug), GRIDS[slug]
    grid_bits = problem.module.grid_bits
    for case in every_case(problem):
        K = case.params["K"]
        a, b = grid_bits(K) if slug == "moe-grouped-gemm" else grid_bits(K, cap)
        # A keeps 8 bits (neither int8 nor fp8 holds it), both fit the type, and the worst partial
        # sum, K products of magnitude 1 in units of 2^-(a+b), is an integer float32 holds.
        assert 8 <= a <= cap, (case.name, a, b)
        assert 0 <= b <= cap, (case.name, a, b)
        assert a + b + math.ceil(math.log2(K)) <= 24, case.name
    if problem.outputs[0].dtype == ml_dtypes.bfloat16:  # rounding to nearest even, bit for bit
        assert problem.tolerance.exact
    else:  # half: one ulp (no rounding toward zero is common there)
        assert problem.tolerance.ulps == 1
        assert problem.tolerance.atol == 0


def test_a_left_to_right_float32_gemm_is_exact_on_the_grid() -> None:
    problem = load_problem("gemm-fp16-nn")
    case, inputs = case_named(problem, "40x72x3000")
    exact = problem.module.reference(inputs, case.params)["C"]  # float32 BLAS, before the rounding to half
    assert np.array_equal(left_to_right(inputs["A"], inputs["B"]), exact)
    assert np.array_equal(left_to_right(inputs["A"][:, ::-1], inputs["B"][::-1]), exact)  # k backwards


def test_gemv_w4a16_sums_exactly_on_every_case() -> None:
    problem = load_problem("gemv-w4a16")
    for case in every_case(problem):
        K = case.params["K"]
        bx, ms = problem.module.grid_bits(K)
        assert bx <= 10, case.name
        assert 1 <= ms <= 8, case.name  # x and (q - 8) s exact in half
        assert bx + ms + 3 + math.ceil(math.log2(K)) <= 24, case.name
        assert K * 8 * 2.0**-6 < 65504, case.name  # |y| <= K * 8 * max s * max |x| fits half


def dequantized_zp(inputs: dict[str, np.ndarray], K: int, *, zeros_transposed: bool = False) -> np.ndarray:
    """gemv-w4a16-zp's weights (q - z) s in float32; zeros_transposed reads GPTQ's [groups][N] layout."""
    packed = inputs["W"]
    q = np.empty((packed.shape[0], K), dtype=F32)
    q[:, 0::2] = packed & 15
    q[:, 1::2] = packed >> 4
    zeros = inputs["zeros"].T.reshape(inputs["zeros"].shape) if zeros_transposed else inputs["zeros"]
    q -= np.repeat(zeros.astype(F32), 128, axis=1)[:, :K]
    return q * np.repeat(inputs["scales"].astype(F32), 128, axis=1)[:, :K]


def test_gemv_w4a16_zp_sums_exactly_on_every_case() -> None:
    problem = load_problem("gemv-w4a16-zp")
    assert problem.tolerance.ulps == 1 and problem.tolerance.atol == 0
    for case in every_case(problem):
        K = case.params["K"]
        bx, ms = problem.module.grid_bits(K)
        assert bx <= 10, case.name
        assert 1 <= ms <= 7, case.name  # x and (q - z) s (4 + ms bits) exact in half
        assert bx + ms + 4 + math.ceil(math.log2(K)) <= 24, case.name
        assert K * 15 * 2.0**-6 < 65504, case.name  # |y| <= K * 15 * max s * max |x| fits half
        assert 1 <= case.params["M"] <= 16, case.name


def test_gemv_w4a16_zp_float32_orders_are_exact_and_the_wrong_layouts_fail() -> None:
    problem = load_problem("gemv-w4a16-zp")
    for name in ("5x33x1000", "4x300x14336"):
        case, inputs = case_named(problem, name)
        K = case.params["K"]
        w = dequantized_zp(inputs, K)
        assert np.array_equal(w.astype(np.float16).astype(F32), w)  # exact in half: fp16 matrix cores
        x = inputs["x"].astype(F32)
        exact = problem.module.reference(inputs, case.params)["y"]  # float32, before the rounding to half
        forward = np.cumsum(x[:, None, :] * w[None, :, :], axis=2, dtype=F32)[..., -1]
        backward = np.cumsum((x[:, None, :] * w[None, :, :])[..., ::-1], axis=2, dtype=F32)[..., -1]
        assert np.array_equal(forward, exact) and np.array_equal(backward, exact), name
        symmetric = inputs | {"zeros": np.full_like(inputs["zeros"], 8)}
        assert not passes(problem, case, inputs, {"y": x @ dequantized_zp(symmetric, K).T})
        assert not passes(problem, case, inputs, {"y": x @ dequantized_zp(inputs, K, zeros_transposed=True).T})


# ---- fp8 with block scales -----------------------------------------------------------------------

def test_fp8_blockwise_sums_exactly_at_every_k_and_both_usual_orders_pass() -> None:
    problem = load_problem("gemm-fp8-blockwise")
    module = problem.module
    assert problem.tolerance.exact
    for case in every_case(problem):
        assert module.exact_up_to(case.params["K"]), case.name
    assert module.LARGEST**2 * 9 * 8192 <= 2**24  # 2^-8 units: |k a k b| <= 225, sa sb <= 9 / 4
    case, inputs = case_named(problem, "127x200x300")
    M, N, K = (case.params[k] for k in ("M", "N", "K"))
    nb = -(-N // 128)
    a, b = inputs["A"].astype(F32), inputs["B"].astype(F32)  # [K, M], [K, N]
    sa, sb = inputs["A_scale"], inputs["B_scale"]
    # Dequantize first (a float32 rounding each), then a left-to-right sum.
    sb_cols = np.repeat(sb, 128, axis=1)[:, :N]
    dequant = left_to_right((a * np.repeat(sa, 128, axis=0)[:K]).T, b * np.repeat(sb_cols, 128, axis=0)[:K])
    assert passes(problem, case, inputs, {"C": dequant})
    # An MFMA kernel's order: each 128-deep block's exact partial sums, scaled by sa * sb and added.
    blocked = np.zeros((M, N), dtype=F32)
    for kb in range(-(-K // 128)):
        part = a[kb * 128 : (kb + 1) * 128].T @ b[kb * 128 : (kb + 1) * 128]
        blocked += part * (sa[kb][:, None] * np.repeat(sb[kb], 128)[:N][None, :]).astype(F32)
    assert passes(problem, case, inputs, {"C": blocked})
    assert nb == sb.shape[1]


# ---- attention -----------------------------------------------------------------------------------

def attention_bound(n: int, smax: float, merge: int = 0) -> float:
    """problem.yaml's |O32 - O| for max|v| = 1: exp, P's bfloat16 rounding, the sums and rescalings;
    `merge` more roundings per term where a kernel splits the sequence and merges the parts."""
    eps_e = (7 * smax + 2) * U
    eps = (1 + eps_e) * (1 + BF16_RN) * (1 + gamma(2 * n + merge)) - 1
    return 2 * eps / (1 - eps) + U


def test_bfloat16_rounding_to_nearest_errs_by_up_to_2_to_the_minus_8() -> None:
    """Issue 39: the attention rules bounded P's rounding by 2^-9, half of it. Just above a power of
    two, half an ulp (2^-8 there) is 2^-8 of the value: beta = 2^-8, and flash-attention-fwd's bound
    at S = 8192 (9.9e-3) is above the old atol 0.0064."""
    x = np.float32(1 + 2.0**-8 - 2.0**-20)  # just below the tie: rounds down to 1
    assert float(x.astype(BF16)) == 1.0
    assert 2.0**-9 < abs(float(x.astype(BF16)) - float(x)) / float(x) <= BF16_RN
    grid = (1 + np.arange(2**16, dtype=np.float64) / 2**16).astype(F32)  # [1, 2) in float32 steps of 2^-16
    worst = np.max(np.abs(grid.astype(BF16).astype(np.float64) - grid) / grid)
    assert 2.0**-9 < worst <= BF16_RN
    assert attention_bound(8192, 8 * math.sqrt(128)) > 0.0064
    assert attention_bound(8192, 8 * math.sqrt(128)) > 2 * BF16_RN


def online_softmax(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float, visible: np.ndarray,
                   block: int) -> np.ndarray:
    """Flash attention as a kernel computes it: float32 scores, exp2 with a running maximum over key
    blocks, P rounded to bfloat16 for P V, l from float32 P, one division."""
    rows = q.shape[0]
    m = np.full(rows, -np.inf, dtype=F32)
    row_sum = np.zeros(rows, dtype=F32)
    o = np.zeros((rows, v.shape[1]), dtype=F32)
    for k0 in range(0, k.shape[0], block):
        s = (q.astype(F32) @ k[k0 : k0 + block].astype(F32).T) * F32(scale * math.log2(math.e))
        s = np.where(visible[:, k0 : k0 + block], s, -np.inf).astype(F32)
        m_new = np.maximum(m, s.max(axis=1))
        alpha = np.exp2(m - m_new).astype(F32)
        p = np.exp2(s - m_new[:, None]).astype(F32)
        row_sum = row_sum * alpha + p.sum(axis=1, dtype=F32)
        o = o * alpha[:, None] + p.astype(BF16).astype(F32) @ v[k0 : k0 + block].astype(F32)
        m = m_new
    return o / row_sum[:, None]


def test_flash_attention_bound_holds_on_every_case_and_a_bf16_p_kernel_passes() -> None:
    problem = load_problem("flash-attention-fwd")
    for case in every_case(problem):
        S, D, H, Hkv = (case.params[k] for k in ("S", "D", "H", "Hkv"))
        assert D in (64, 128), case.name
        assert H % Hkv == 0, case.name
        assert attention_bound(S, 8 * math.sqrt(D)) <= problem.tolerance.atol, case.name
    case, inputs = case_named(problem, "b1-s130-h2-kv2-d128")
    S, D = case.params["S"], case.params["D"]
    causal = np.tril(np.ones((S, S), dtype=bool))
    out = np.empty((1, S, 2, D), dtype=F32)
    for h in range(2):
        out[0, :, h] = online_softmax(inputs["Q"][0, :, h], inputs["K"][0, :, h], inputs["V"][0, :, h],
                                      1 / math.sqrt(D), causal, 32)
    assert passes(problem, case, inputs, {"O": out})
    unmasked = online_softmax(inputs["Q"][0, :, 0], inputs["K"][0, :, 0], inputs["V"][0, :, 0], 1 / math.sqrt(D),
                              np.ones((S, S), dtype=bool), 32)
    out[0, :, 0] = unmasked
    assert not passes(problem, case, inputs, {"O": out})


def test_mla_decode_bound_holds_on_every_case_and_a_bf16_p_kernel_passes() -> None:
    problem = load_problem("mla-decode")
    for case in every_case(problem):
        assert case.params["scale"] <= 0.14, case.name
        assert 64 * case.params["P"] <= 8192, case.name
        assert attention_bound(64 * case.params["P"], 0.14 * 2 * 576, merge=2) <= problem.tolerance.atol, case.name
    case, inputs = case_named(problem, "b3-h16-p3")
    out = np.empty((3, 16, 512), dtype=F32)
    for b in range(3):
        n = int(inputs["seq_lens"][b])
        kv = inputs["kv_cache"][inputs["block_table"][b]].reshape(-1, 576)[:n]
        out[b] = online_softmax(inputs["q"][b], kv, kv[:, :512], float(F32(case.params["scale"])),
                                np.ones((16, n), dtype=bool), 64)
    assert passes(problem, case, inputs, {"out": out})


# ---- MoE routing ---------------------------------------------------------------------------------

def test_routing_bound_holds_and_a_kernel_that_flushes_tiny_exps_passes_on_mixed_rows() -> None:
    problem = load_problem("moe-topk-routing")
    for case in every_case(problem):
        assert case.params["E"] <= 256, case.name
        assert case.params["topk"] <= 8, case.name
    assert 1141 * U <= problem.tolerance.rtol
    case, inputs = case_named(problem, "t64-e128-top8-renorm")
    # The benchmark's changes copy values between rows: a row may hold its own values and another
    # row's, 200 apart. exp of the far ones underflows; a GPU flushes it to zero.
    logits = inputs["logits"].copy()
    logits[::2, :3] = logits[1::2, :3] + F32(150)
    mixed = {"logits": logits}
    E, k = case.params["E"], case.params["topk"]
    for renormalize in (0, 1):
        params = dict(case.params, renormalize=renormalize)
        probe = Case(case.name, case.devices, params)
        x = logits.astype(F32)
        ids = np.argsort(-x, axis=1, kind="stable")[:, :k]
        e = np.exp(x - x.max(axis=1, keepdims=True)).astype(F32)
        e[e < np.finfo(F32).tiny] = 0  # flushed
        chosen = np.take_along_axis(e, ids, axis=1)
        total = chosen.sum(axis=1, dtype=F32) if renormalize else e.sum(axis=1, dtype=F32)
        assert E == x.shape[1]
        assert passes(problem, probe, mixed, {"weights": chosen / total[:, None], "ids": ids.astype(np.int32)})

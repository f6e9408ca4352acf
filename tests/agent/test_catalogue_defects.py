"""Cheaper kernels the catalogue's check rules must refuse (issue 39, item 1): each test models a
kernel that does less work or computes in a cheaper precision than the statement asks, in NumPy,
on the problem's own generator, and asserts the judge's comparison refuses it; and the property the
problem's derived rule rests on, checked on the generator over many draws."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from agent.judging.verify import compare
from agent.problems.bundle import Case, Problem
from agent.problems.expr import evaluate
from tests.agent.conftest import load_problem

F32 = np.float32


def every_case(problem: Problem) -> list[Case]:
    return [*problem.tests, *problem.benchmarks, *problem.ranked]


def draw(problem: Problem, params: dict[str, int | float], seed: int) -> tuple[Case, dict[str, np.ndarray]]:
    case = Case("probe", ("host",), params)
    return case, problem.generate(case, np.random.default_rng(seed))


def verdict(problem: Problem, case: Case, inputs: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> str | None:
    """The judge's first mismatch (None: accepted), comparing in the output's declared type."""
    want = problem.expected(case, inputs)
    for name, expected in want.items():
        message = compare(name, np.asarray(got[name]).astype(expected.dtype), expected, problem.tolerance)
        if message:
            return message
    return None


# ---- defect 1: conv2d-nhwc-fp16 on int8 matrix cores ---------------------------------------------

def conv2d_f32(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The convolution as an implicit GEMM in float32 (NumPy's blocked float32 matmul: an order
    of its own), x NHWC and w KRSC, both already float32."""
    n, h, wd, c = x.shape
    padded = np.zeros((n, h + 2, wd + 2, c), dtype=F32)
    padded[:, 1:-1, 1:-1, :] = x
    cols = np.concatenate([padded[:, r:r + h, s:s + wd, :].reshape(-1, c) for r in range(3) for s in range(3)], axis=1)
    filt = w.reshape(w.shape[0], 9 * c)
    return (cols @ filt.T).reshape(n, h, wd, w.shape[0])


def per_tensor_int8(a: np.ndarray, *, power_of_two: bool) -> np.ndarray:
    """Symmetric per-tensor int8 quantization and back: what an int8 matrix-core kernel computes on.
    Its scale is amax / 127, or the power of two at or above it (which loses nothing on values of a
    binary grid that int8 holds: the old generator's k/64)."""
    scale = float(np.abs(a).max()) / 127.0
    if power_of_two:
        scale = 2.0 ** np.ceil(np.log2(scale))
    return (np.clip(np.rint(a / scale), -128, 127) * scale).astype(F32)


CONV = {"N": 2, "H": 14, "W": 14, "C": 64, "K": 64}


def test_conv2d_an_int8_or_fp8_kernel_is_refused_and_a_float32_one_is_exact() -> None:
    problem = load_problem("conv2d-nhwc-fp16")
    for seed in range(3):
        case, inputs = draw(problem, CONV, seed)
        x, w = inputs["input"].astype(F32), inputs["weight"].astype(F32)
        assert verdict(problem, case, inputs, {"output": conv2d_f32(x, w)}) is None
        for power_of_two in (False, True):
            xq, wq = (per_tensor_int8(t, power_of_two=power_of_two) for t in (x, w))
            int8 = conv2d_f32(xq, wq)
            assert verdict(problem, case, inputs, {"output": int8}) is not None, power_of_two
        e4m3 = ml_dtypes.float8_e4m3fn  # the OCP fp8 of H100 and MI355X; FNUZ's 3-bit mantissa alike
        fp8 = conv2d_f32(x.astype(e4m3).astype(F32), w.astype(e4m3).astype(F32))
        assert verdict(problem, case, inputs, {"output": fp8}) is not None


def test_conv2d_generator_keeps_every_float32_partial_sum_exact_on_every_case() -> None:
    """The exact rule's premise: products on a 2^-12 grid whose sum of magnitudes over the longest
    reduction (9 C) stays below 2^12, so every partial sum has at most 24 significant bits."""
    problem = load_problem("conv2d-nhwc-fp16")
    longest = 9 * max(case.params["C"] for case in every_case(problem))
    for seed in range(20):
        _, inputs = draw(problem, {"N": 1, "H": 4, "W": 4, "C": 128, "K": 16}, seed)
        x, w = inputs["input"].astype(np.float64), inputs["weight"].astype(np.float64)
        assert np.array_equal(x * 256, np.rint(x * 256)) and np.abs(x * 256).max() <= 255
        assert np.array_equal(w * 16, np.rint(w * 16)) and np.abs(w * 16).max() <= 7
        # ... and the inputs are not int8 values under any per-tensor scale: 9 bits with the sign.
        assert len(np.unique(x)) > 256
    assert longest * 255 * 7 < 2**24


# ---- defects 3 and 4: fp8 GEMMs at their largest K -----------------------------------------------

def blockwise_scales(inputs: dict[str, np.ndarray], K: int, N: int) -> tuple[np.ndarray, np.ndarray]:
    """A_scale and B_scale spread to A's [K, M] and B's [K, N] elements."""
    sa = np.repeat(inputs["A_scale"], 128, axis=0)[:K]
    sb = np.repeat(np.repeat(inputs["B_scale"], 128, axis=0)[:K], 128, axis=1)[:, :N]
    return sa, sb


def per_tensor_requantized(x: np.ndarray) -> np.ndarray:
    """x requantized to fp8 E4M3 FNUZ with one scale for the whole tensor (amax to 240), and back:
    what a kernel that folds the block scales into its inputs once, then runs a per-tensor fp8 GEMM,
    computes on."""
    scale = F32(np.abs(x).max() / F32(240))
    return (x / scale).astype(ml_dtypes.float8_e4m3fnuz).astype(F32) * scale


FP8_BLOCKWISE = {"M": 16, "N": 256, "K": 7168}  # DeepSeek-R1's K, few rows


def test_fp8_blockwise_a_per_tensor_requantization_is_refused_and_float32_orders_are_exact() -> None:
    problem = load_problem("gemm-fp8-blockwise")
    K, N = FP8_BLOCKWISE["K"], FP8_BLOCKWISE["N"]
    for seed in range(2):
        case, inputs = draw(problem, FP8_BLOCKWISE, seed)
        a, b = inputs["A"].astype(F32), inputs["B"].astype(F32)  # [K, M], [K, N]
        sa, sb = blockwise_scales(inputs, K, N)
        requantized = per_tensor_requantized((a * sa).T) @ per_tensor_requantized(b * sb)
        assert verdict(problem, case, inputs, {"C": requantized}) is not None
        dequantized = (a * sa).T @ (b * sb)  # float32 BLAS's order
        assert verdict(problem, case, inputs, {"C": dequantized}) is None
        blocked = np.zeros((FP8_BLOCKWISE["M"], N), dtype=F32)  # an MFMA kernel's: block sums, then scaled
        for k0 in range(0, K, 128):
            part = a[k0:k0 + 128].T @ b[k0:k0 + 128]
            blocked += part * (sa[k0][:, None] * sb[k0][None, :])
        assert np.array_equal(blocked, dequantized)


def test_fp8_gemms_sum_exactly_at_every_k_their_cases_have() -> None:
    """The rules' premise, at the largest K of each (7168 and 8192): today's rules were derived for
    K <= 256 (gemm-fp8) and bounded by atol at 20 % of the outputs' spread (gemm-fp8-blockwise)."""
    for slug in ("gemm-fp8", "gemm-fp8-blockwise"):
        problem = load_problem(slug)
        assert all(problem.module.exact_up_to(case.params["K"]) for case in every_case(problem)), slug
    # gemm-fp8's largest sum of magnitudes, exact in float32 in units of 2^-6: an integer below 2^24.
    problem = load_problem("gemm-fp8")
    K = max(case.params["K"] for case in every_case(problem))
    a = np.full((1, K), 2.0, dtype=np.float32).astype(ml_dtypes.float8_e4m3fnuz)
    got = problem.module.reference({"A": a, "B": a.T.copy()}, {"M": 1, "N": 1, "K": K})["C"]
    assert float(np.float32(got[0, 0])) == 4.0 * K
    assert problem.tolerance.exact


def test_gemm_fp8_an_accumulator_of_fourteen_bits_fails_at_the_largest_k() -> None:
    """The statement's warning about H100: fp8 tensor cores that keep about 14 bits of the running
    sum, never promoted to float32, lose the low bits once partial sums pass 2^14 units."""
    problem = load_problem("gemm-fp8")
    case, inputs = draw(problem, {"M": 8, "N": 64, "K": 8192}, 3)
    a, b = inputs["A"].astype(np.float64), inputs["B"].astype(np.float64)
    acc = np.zeros((8, 64))
    for k0 in range(0, 8192, 32):  # one instruction's 32 products, then the accumulator's rounding
        acc += a[:, k0:k0 + 32] @ b[k0:k0 + 32]
        exponent = np.floor(np.log2(np.maximum(np.abs(acc), 2.0**-30)))
        unit = 2.0 ** (exponent - 13)  # 14 significant bits, truncated
        acc = np.trunc(acc / unit) * unit
    assert verdict(problem, case, inputs, {"C": acc.astype(F32)}) is not None
    assert verdict(problem, case, inputs, {"C": (a @ b).astype(F32)}) is None


# ---- sum-reduction: a dropped tail ---------------------------------------------------------------

def test_sum_reduction_a_kernel_that_drops_the_tail_is_refused_at_a_ranked_size() -> None:
    """n = 2^24 + 1: a kernel whose blocks cover a multiple of B elements drops the last one, which
    uniform inputs in [-1, 1] hid under the tolerance (0.05 + 1e-4 |sum|, about 0.3 here) for most
    draws; the generator's tail (last 4096 in [1/2, 1], the last 64) makes every suffix count."""
    problem = load_problem("sum-reduction")
    n = 2**24 + 1
    for seed in (8, 21, 25):  # draws whose last uniform element hid under that tolerance
        case, inputs = draw(problem, {"n": n}, seed)
        x = inputs["input"].astype(np.float64)
        total = x.sum()
        assert verdict(problem, case, inputs, {"output": np.array([total], dtype=F32)}) is None
        for block in (2, 4, 8, 256, 1024, 4096):
            kept = n - n % block
            assert verdict(problem, case, inputs, {"output": np.array([x[:kept].sum()], dtype=F32)}) is not None


def test_sum_reduction_every_suffix_of_the_tail_outweighs_the_tolerance_at_every_size() -> None:
    """Any suffix of t <= 4096 elements sums to at least 64 + (t - 1) / 2, and the tolerance stays
    below that at the largest n even with the uniform body 10 standard deviations from 0."""
    problem = load_problem("sum-reduction")
    for n in (1, 7, 4097, 65537):
        _, inputs = draw(problem, {"n": n}, n)
        suffix_sums = np.cumsum(inputs["input"][::-1].astype(np.float64))[:4096]
        assert (suffix_sums >= 64 + np.arange(suffix_sums.size) / 2).all(), n
    largest = max(case.params["n"] for case in every_case(problem))
    worst_sum = 10 * math.sqrt(largest / 3) + 4096 + 64
    tol = problem.tolerance
    assert tol.atol + tol.rtol * worst_sum < 11 < 64


# ---- defect 7: bfloat16 rounded toward zero ------------------------------------------------------

BF16 = ml_dtypes.bfloat16


def toward_zero(x: np.ndarray) -> np.ndarray:
    """float32 to bfloat16 by dropping the low 16 bits (`bits >> 16`), not to nearest even."""
    return (x.astype(F32).view(np.uint32) & np.uint32(0xFFFF0000)).view(F32).astype(BF16)


def float32_kernels(slug: str, inputs: dict[str, np.ndarray], params: dict) -> list[np.ndarray]:
    """The float32 results honest kernels compute (before their rounding to bfloat16), one or two
    ways per problem: the order of the reference's formula, and a common variant."""
    f = {name: value.astype(F32) for name, value in inputs.items() if value.dtype != np.int32}
    if slug == "rmsnorm-bf16":
        x, w = f["x"], f["weight"]
        rstd = F32(1) / np.sqrt(np.mean(x * x, axis=1, keepdims=True, dtype=F32) + F32(1e-5))
        return [x * rstd * w, (x * rstd).astype(BF16).astype(F32) * w]  # Hugging Face rounds x rstd first
    if slug == "layernorm-bf16":
        x = f["x"]
        d = x - np.mean(x, axis=1, keepdims=True, dtype=F32)
        rstd = F32(1) / np.sqrt(np.mean(d * d, axis=1, keepdims=True, dtype=F32) + F32(1e-5))
        fused = ((d * rstd).astype(np.float64) * f["gamma"] + f["beta"]).astype(F32)  # one rounding: an FMA
        return [d * rstd * f["gamma"] + f["beta"], fused]
    if slug == "swiglu-bf16":
        g, u = f["gate_up"][:, :params["ffn"]], f["gate_up"][:, params["ffn"]:]
        silu = g / (F32(1) + np.exp(-g))
        return [silu * u, silu.astype(BF16).astype(F32) * u]  # vLLM's silu_and_mul rounds SiLU first
    x, half = f["x"], params["head_dim"] // 2
    c = inputs["cos"][inputs["positions"]][:, None, :]
    s = inputs["sin"][inputs["positions"]][:, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return [np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)]


TRUNCATION_CASES = {
    "rmsnorm-bf16": {"rows": 8, "cols": 4096},
    "layernorm-bf16": {"rows": 8, "cols": 4096},
    "swiglu-bf16": {"tokens": 8, "ffn": 4096},
    "rope-bf16": {"tokens": 64, "heads": 8, "head_dim": 128, "max_pos": 8192},
}


@pytest.mark.parametrize("slug", sorted(TRUNCATION_CASES))
def test_bf16_elementwise_and_normalization_outputs_rounded_toward_zero_are_refused(slug: str) -> None:
    problem = load_problem(slug)
    assert problem.tolerance.bias == 0.25
    for seed in range(3):
        case, inputs = draw(problem, TRUNCATION_CASES[slug], seed)
        for result in float32_kernels(slug, inputs, case.params):
            assert verdict(problem, case, inputs, {"out": result.astype(BF16)}) is None
            assert verdict(problem, case, inputs, {"out": toward_zero(result)}) is not None


EXACT_BF16_GEMMS = {
    "gemm-bf16": ({"M": 32, "N": 256, "K": 1024}, lambda i: i["A"].astype(F32) @ i["B"].astype(F32)),
    "gemm-bf16-nt": ({"M": 32, "N": 256, "K": 1024}, lambda i: i["A"].astype(F32) @ i["B"].astype(F32).T),
}


@pytest.mark.parametrize("slug", sorted(EXACT_BF16_GEMMS))
def test_exact_sum_bf16_gemms_refuse_their_exact_sum_rounded_toward_zero(slug: str) -> None:
    """Their float32 sum is exact (every partial sum on the grid), so the rounding to nearest even
    of an honest kernel is the reference's, bit for bit: the check is exact."""
    problem = load_problem(slug)
    params, kernel = EXACT_BF16_GEMMS[slug]
    case, inputs = draw(problem, params, 1)
    exact = kernel(inputs)
    assert verdict(problem, case, inputs, {"C": exact.astype(BF16)}) is None
    assert verdict(problem, case, inputs, {"C": toward_zero(exact)}) is not None


# ---- attention: Q and K not int8 -------------------------------------------------------------------

def int8_survivors(x: np.ndarray) -> float:
    """The fraction of x an int8 copy under the best power-of-two scale keeps exactly."""
    x = x.astype(np.float64)
    best = 0.0
    for exponent in range(-12, 4):
        q = np.clip(np.rint(x / 2.0**exponent), -128, 127) * 2.0**exponent
        best = max(best, float(np.mean(q == x)))
    return best


ATTENTION_SCORE_OPERANDS = {
    "flash-attention-bwd-bf16": ({"B": 1, "S": 64, "H": 2, "D": 128}, "Q", "K", 2.0**-5, 2.0**-7, 128),
    "attention-swa-sinks-bf16": ({"B": 1, "S": 64, "H": 2, "Hkv": 2, "D": 128, "W": 16}, "Q", "K", 2.0**-5, 2.0**-7,
                                 128),
    "attention-varlen-bf16": ({"Nd": 2, "Cd": 64, "Nw": 2, "Lw": 64, "Nc": 1, "Lc": 33, "Cc": 31, "B": 5, "Tq": 163,
                               "Tk": 322, "H": 8, "Hkv": 2, "D": 128}, "Q", "K", 2.0**-5, 2.0**-7, 128),
    "flash-attention-fwd": ({"B": 1, "S": 64, "H": 2, "Hkv": 2, "D": 128}, "Q", "K", 2.0**-5, 2.0**-7, 128),
    "flash-attention-fwd-lse": ({"B": 1, "S": 64, "H": 2, "Hkv": 2, "D": 128}, "Q", "K", 2.0**-5, 2.0**-7, 128),
    "mla-decode": ({"B": 2, "H": 16, "P": 2, "scale": 0.135}, "q", "kv_cache", 2.0**-7, 2.0**-6, 576),
}


@pytest.mark.parametrize("slug", sorted(ATTENTION_SCORE_OPERANDS))
def test_attention_queries_are_not_int8_and_scores_stay_exact_in_float32(slug: str) -> None:
    """An int8 QK^T needs both operands in int8: the queries take 9 bits with the sign (before, only
    +128 was outside int8), and the scores' partial sums stay integers below 2^24 units."""
    problem = load_problem(slug)
    params, query, key, q_step, k_step, length = ATTENTION_SCORE_OPERANDS[slug]
    _, inputs = draw(problem, params, 0)
    q, k = inputs[query].astype(np.float64), inputs[key].astype(np.float64)
    assert int8_survivors(q) < 0.9
    assert np.array_equal(q / q_step, np.rint(q / q_step)) and np.array_equal(k / k_step, np.rint(k / k_step))
    assert length * np.abs(q / q_step).max() * np.abs(k / k_step).max() <= 2**24



# ---- gemv-w4a16: the format it is -------------------------------------------------------------------

def test_gemv_w4a16_names_its_format_and_not_awqs() -> None:
    """Symmetric 4-bit weights with a fixed zero point of 8 and one scale per group are GPTQ's
    symmetric mode; AWQ keeps a zero point per group and interleaves eight columns per int32."""
    problem = load_problem("gemv-w4a16")
    assert "AWQ style" not in problem.statement and "GPTQ / AWQ" not in problem.statement
    assert "not AWQ's format" in problem.statement
    assert "zero point 8" in problem.statement


# ---- floors: radix-sort and spmv-csr ---------------------------------------------------------------

@pytest.mark.parametrize("slug", ["radix-sort", "spmv-csr"])
def test_floors_count_the_compulsory_traffic_and_their_statements_say_a_kernel_sits_below_it(slug: str) -> None:
    """`bytes` is each buffer moved once, never more: the plausibility check refuses times that would
    move `bytes` faster than the memory can, so a count of an algorithm's extra passes would refuse a
    kernel with fewer. What no known algorithm reaches is said in the statement instead."""
    problem = load_problem(slug)
    for case in every_case(problem):
        moved = sum(math.prod(p.shape_for(case.params)) * p.dtype.itemsize for p in problem.signature if p.pointer)
        assert evaluate(problem.bytes, case.params) == moved, case.name
    assert "compulsory traffic" in problem.statement

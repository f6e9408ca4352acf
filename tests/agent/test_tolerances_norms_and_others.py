"""The check rules of the normalization, activation and "others" problems, derived in their
problem.yaml: each bound recomputed from the problem's own cases, and float32 kernels written the
ways people write them (a left-to-right sum, the worst order for a positive sum; Welford; rounding
to the output type twice) run on the generator's inputs and judged by the judge's comparison."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from agent.judging.verify import compare
from agent.problems.bundle import Case, Problem
from tests.agent.conftest import load_problem

U = 2.0**-24  # float32's unit roundoff
F32 = np.float32
BF16 = ml_dtypes.bfloat16


def fast_exp_rel(x: float) -> float:
    """A GPU's fast exp at |x| (tests/agent/test_tolerances.py): 2 + 1.16 |x| float32 ulps."""
    return (2 + 1.16 * x) * 2.0**-23


def largest(slug: str, name: str) -> int:
    definition = load_problem(slug).definition
    return max(case["params"][name] for kind in ("tests", "benchmarks", "ranked") for case in definition[kind])


def inputs_of(problem: Problem, params: dict[str, int | float], seed: int = 7) -> tuple[Case, dict[str, np.ndarray]]:
    case = Case("probe", ("host",), params)
    return case, problem.generate(case, np.random.default_rng(seed))


def passes(problem: Problem, case: Case, inputs: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> bool:
    want = problem.expected(case, inputs)
    return all(compare(name, np.asarray(got[name]).astype(want[name].dtype), want[name], problem.tolerance) is None
               for name in want)


def left_to_right(a: np.ndarray) -> np.ndarray:
    """Row sums in float32, one term after another."""
    return np.cumsum(a.astype(F32), axis=-1, dtype=F32)[..., -1]


# ---- normalizations ---------------------------------------------------------------------------------

def test_rmsnorm_bf16_float32_error_is_under_a_quarter_ulp_and_both_roundings_pass() -> None:
    problem = load_problem("rmsnorm-bf16")
    cols = largest("rmsnorm-bf16", "cols")
    relative = 0.5 * (cols - 1) * U + 2 * 2.0**-23 + 4 * U
    assert relative < 0.25 * 2.0**-8, relative  # a quarter of bfloat16's smallest relative ulp
    case, inputs = inputs_of(problem, {"rows": 6, "cols": cols})
    x, w = inputs["x"].astype(F32), inputs["weight"].astype(F32)
    rstd = F32(1) / np.sqrt(left_to_right(x * x) / F32(cols) + F32(1e-5))
    once = x * rstd[:, None] * w
    twice = (x * rstd[:, None]).astype(BF16).astype(F32) * w  # Hugging Face's and vLLM's order
    assert passes(problem, case, inputs, {"out": once})
    assert passes(problem, case, inputs, {"out": twice})


def test_layernorm_bf16_rows_have_the_statistics_the_bound_assumes() -> None:
    problem = load_problem("layernorm-bf16")
    cols = largest("layernorm-bf16", "cols")
    z = problem.module._shape(cols)
    assert abs(z.mean()) < 1e-12
    assert abs(np.sqrt(np.mean(z * z)) - 1) < 1e-12
    assert np.abs(z).max() <= 5.36
    rng = np.random.default_rng(5)
    for _ in range(3):
        inputs = problem.module.generate({"rows": 64, "cols": cols}, rng)
        x = inputs["x"].astype(np.float64)
        # Recover each row's spread s from the draw: the rows are m + s z rounded to bfloat16.
        spread = (x.max(axis=1) - x.min(axis=1)) / (z.max() - z.min())
        assert (x.std(axis=1) >= 0.9956 * spread * 0.999).all()
    mean_term = 2.0**-11 * (2 + 5.36) / 0.9956 * 1.5   # the worst shift of a row's mean, output units
    variance_term = 0.1 * 2.0**-11                      # the variance's relative error times |beta|
    assert mean_term + variance_term + 4 * U * 72 <= problem.tolerance.atol, mean_term


def test_layernorm_bf16_two_pass_and_welford_in_float32_pass_in_the_worst_summation_order() -> None:
    problem = load_problem("layernorm-bf16")
    cols = largest("layernorm-bf16", "cols")
    case, inputs = inputs_of(problem, {"rows": 16, "cols": cols})
    x, g, b = (inputs[k].astype(F32) for k in ("x", "gamma", "beta"))
    n = F32(cols)
    mean = left_to_right(x) / n
    d = x - mean[:, None]
    two_pass = d * (F32(1) / np.sqrt(left_to_right(d * d) / n + F32(1e-5)))[:, None] * g + b
    run_mean, m2 = np.zeros(16, F32), np.zeros(16, F32)
    for k in range(cols):
        delta = x[:, k] - run_mean
        run_mean = run_mean + delta / F32(k + 1)
        m2 = m2 + delta * (x[:, k] - run_mean)
    welford = (x - run_mean[:, None]) * (F32(1) / np.sqrt(m2 / n + F32(1e-5)))[:, None] * g + b
    assert passes(problem, case, inputs, {"out": two_pass})
    assert passes(problem, case, inputs, {"out": welford})


# ---- activations ------------------------------------------------------------------------------------

def test_swiglu_bf16_float32_and_vllm_rounding_pass() -> None:
    problem = load_problem("swiglu-bf16")
    assert fast_exp_rel(15) + 5 * U < 0.25 * 2.0**-9
    case, inputs = inputs_of(problem, {"tokens": 64, "ffn": 8192})
    gu = inputs["gate_up"].astype(F32)
    g, u = gu[:, :8192], gu[:, 8192:]
    silu = g / (F32(1) + np.exp(-g))
    assert passes(problem, case, inputs, {"out": silu * u})
    assert passes(problem, case, inputs, {"out": silu.astype(BF16).astype(F32) * u})  # vLLM's silu_and_mul


def test_gelu_tanh_float32_forms_pass_and_the_erf_form_fails() -> None:
    problem = load_problem("gelu-tanh")
    tol = problem.tolerance
    assert fast_exp_rel(2 * 0.7978845608 * (8 + 0.044715 * 8**3)) + 8 * U <= tol.rtol
    assert 0.5 * 8 * (2 * 2.0**-23 + 6 * U * 0.45 / 0.5 + 2 * U) <= tol.atol
    x = np.linspace(-8, 8, 400001).astype(F32).reshape(1, -1)
    case = Case("grid", ("host",), {"rows": 1, "cols": x.shape[1]})
    y = F32(0.7978845608028654) * (x + F32(0.044715) * x * x * x)
    tanh_form = F32(0.5) * x * (F32(1) + np.tanh(y))
    sigmoid_form = x / (F32(1) + np.exp(F32(-2) * y))
    assert passes(problem, case, {"x": x}, {"out": tanh_form})
    assert passes(problem, case, {"x": x}, {"out": sigmoid_form})
    erf_form = 0.5 * x.astype(np.float64) * (1 + np.vectorize(math.erf)(x.astype(np.float64) / math.sqrt(2)))
    assert not passes(problem, case, {"x": x}, {"out": erf_form})


def test_softmax_fp16_worst_order_float32_row_stays_within_two_ulps() -> None:
    problem = load_problem("softmax-fp16")
    cols = largest("softmax-fp16", "cols")
    relative = (cols - 1) * U + 2 * fast_exp_rel(40) + U
    assert relative < 1.03 * 2.0**-11
    case, inputs = inputs_of(problem, {"rows": 8, "cols": cols})
    x = inputs["x"].astype(F32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert passes(problem, case, inputs, {"out": e / left_to_right(e)[:, None]})
    # The reference's own rounding to half is NumPy's, subnormals, ties and the smallest normal included.
    ties = np.arange(0, 2049) * 2.0**-25
    p = np.concatenate([ties, np.nextafter(ties, 1), np.nextafter(ties, -1).clip(0), np.linspace(0, 1, 10001)])
    assert np.array_equal(problem.module.to_half(p).view(np.uint16), p.astype(np.float16).view(np.uint16))


def test_rope_bf16_cancellation_stays_within_the_absolute_term() -> None:
    problem = load_problem("rope-bf16")
    assert 2 * U * 32 <= problem.tolerance.atol
    case, inputs = inputs_of(problem, {"tokens": 256, "heads": 8, "head_dim": 128, "max_pos": 8192})
    x = inputs["x"].astype(F32)
    c = inputs["cos"][inputs["positions"]][:, None, :]
    s = inputs["sin"][inputs["positions"]][:, None, :]
    x1, x2 = x[..., :64], x[..., 64:]
    plain = np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)
    # A fused multiply-add: one product exact, one rounding of the whole.
    fused = np.concatenate([(x1.astype(np.float64) * c - (x2 * s)).astype(F32),
                            (x2.astype(np.float64) * c + (x1 * s)).astype(F32)], axis=-1)
    assert passes(problem, case, inputs, {"out": plain})
    assert passes(problem, case, inputs, {"out": fused})


# ---- others -----------------------------------------------------------------------------------------

def test_cross_entropy_bound_covers_a_float32_sum_of_the_largest_vocabulary() -> None:
    problem = load_problem("cross-entropy-bf16")
    vocab = largest("cross-entropy-bf16", "vocab")
    bound = (vocab - 1) * U + fast_exp_rel(60) + 2 * 2.0**-20 + 2 * 72 * U
    assert bound <= problem.tolerance.atol, bound
    case, inputs = inputs_of(problem, {"tokens": 6, "vocab": vocab})
    x = inputs["logits"].astype(F32)
    m = x.max(axis=1)
    loss = np.log(left_to_right(np.exp(x - m[:, None]))) + m - x[np.arange(6), inputs["targets"]]
    assert passes(problem, case, inputs, {"loss": loss})


def test_conv2d_and_spmv_grids_keep_every_float32_partial_sum_exact() -> None:
    # Products are multiples of 2^-12; a partial sum below 2^12 in magnitude needs at most 24 bits.
    assert 9 * largest("conv2d-nhwc-fp16", "C") * (255 / 256) * (7 / 16) < 2**12
    spmv = load_problem("spmv-csr")
    assert spmv.module.MAX_ROW * 1 * 1 < 2**12
    lengths = spmv.module._row_lengths(20000, 20000, 2_000_000, np.random.default_rng(1))
    assert lengths.sum() == 2_000_000
    assert lengths.max() <= spmv.module.MAX_ROW


def test_stencil_bound_covers_nine_float32_roundings_of_every_case() -> None:
    problem = load_problem("stencil-2d")
    definition = problem.definition
    for kind in ("tests", "benchmarks", "ranked"):
        for case in definition[kind]:
            c, d = case["params"]["c"], case["params"]["d"]
            assert 9 * U * (abs(c) + 4 * abs(d)) <= problem.tolerance.atol


def test_fp8_quantization_any_float32_formula_is_within_one_ulp_for_every_pair_of_mantissas() -> None:
    problem = load_problem("fp8-quant-blockwise")
    mantissas = 1 + np.arange(128) / 128.0  # every bfloat16 significand
    amax = mantissas.astype(F32)
    scale = amax / F32(240)                  # the reference's
    assert compare("scales", amax * (F32(1) / F32(240)), scale, problem.tolerance) is None
    # x = m_x 2^-e against every amax significand: x / amax from 1 down into fp8's subnormals.
    x = np.concatenate([mantissas * 2.0**-e for e in range(14)]).astype(F32)[:, None]
    want = (x.astype(np.float64) / scale.astype(np.float64)).astype(ml_dtypes.float8_e4m3fnuz)
    keep = x <= amax  # |x| <= the block's maximum
    fp8 = ml_dtypes.float8_e4m3fnuz
    for got in (x / scale, x * (F32(1) / scale), x * (F32(240) / amax)):
        got8 = np.where(keep, got, 0).astype(fp8)
        assert compare("q", got8, np.where(keep, want.astype(np.float64), 0).astype(fp8), problem.tolerance) is None

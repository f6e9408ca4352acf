"""The check rules of the fused-epilogue, fused-norm and backward problems, derived in their
problem.yaml: each bound recomputed from every case the problem judges (tests, benchmarks, ranked),
and float32 kernels written the ways people write them run on the generator's inputs (or on every
value an intermediate can take) and judged by the judge's comparison."""

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


def every_case(problem: Problem) -> list[Case]:
    return [*problem.tests, *problem.benchmarks, *problem.ranked]


def passes(problem: Problem, case: Case, inputs: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> bool:
    want = problem.expected(case, inputs)
    return all(compare(name, np.asarray(got[name]).astype(want[name].dtype), want[name], problem.tolerance) is None
               for name in want)


def case_and_inputs(problem: Problem, name: str, seed: int) -> tuple[Case, dict[str, np.ndarray]]:
    case = next(c for c in problem.tests if c.name == name)
    return case, problem.generate(case, np.random.default_rng(seed))


def one_sign_per_column(terms: np.ndarray) -> bool:
    return bool(np.all((terms >= 0).all(axis=0) | (terms <= 0).all(axis=0)))


def all_bfloat16_within(limit: float) -> np.ndarray:
    """Every finite bfloat16 value of magnitude at most `limit`, as float32."""
    values = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(BF16).astype(F32)
    return np.sort(values[np.isfinite(values) & (np.abs(values) <= limit)])


# ---- gemm-bias-gelu-bf16 -------------------------------------------------------------------------

def gelu_tanh_form(x: np.ndarray, tanh_ulps: int) -> np.ndarray:
    """0.5 x (1 + tanhf(y)) in float32, tanhf moved `tanh_ulps` ulps towards +1 (a 2-ulp tanhf's worst
    case where 1 + t cancels: the result moves away from zero for x < 0)."""
    y = F32(0.7978845608028654) * (x + F32(0.044715) * x * x * x)
    t = np.tanh(y)
    for _ in range(tanh_ulps):
        t = np.nextafter(t, F32(1))
    return F32(0.5) * x * (F32(1) + t)


def gelu_sigmoid_form(x: np.ndarray) -> np.ndarray:
    y = F32(0.7978845608028654) * (x + F32(0.044715) * x * x * x)
    with np.errstate(over="ignore"):
        return x / (F32(1) + np.exp(F32(-2) * y))


def test_gemm_bias_gelu_pre_activation_is_exact_and_the_bound_covers_every_case() -> None:
    problem = load_problem("gemm-bias-gelu-bf16")
    tol = problem.tolerance
    largest: float = 0
    for case in every_case(problem):
        K = case.params["K"]
        a, b = problem.module.grid_bits(K)
        assert a == 8 and 0 <= b <= 8, case.name  # A keeps 8 bits; the bias's 2^-8 grid is a multiple of 2^-(a+b)
        assert a + b + math.ceil(math.log2(K + 1)) <= 24, case.name
        largest = max(largest, K)
    assert tol.ulps == 1
    assert 2 * ((largest + 1) * U + 1e-6) <= tol.atol


def test_gemm_bias_gelu_float32_forms_pass_at_every_pre_activation_and_wrong_orders_fail() -> None:
    problem = load_problem("gemm-bias-gelu-bf16")
    # Every bfloat16 pre-activation up to the largest |x| the cases reach (K + 1 <= 8193), as A B with
    # A = 1 and K = 1: the kernel's float32 x is exact, so this is every GELU input it can see on this grid.
    x = all_bfloat16_within(8193).reshape(1, -1)
    case = Case("every-x", ("host",), {"M": 1, "N": x.shape[1], "K": 1})
    inputs = {"A": np.ones((1, 1), dtype=BF16), "B": x.astype(BF16), "bias": np.zeros(x.shape[1], dtype=BF16)}
    for tanh_ulps in (0, 2):
        assert passes(problem, case, inputs, {"C": gelu_tanh_form(x, tanh_ulps)})
    assert passes(problem, case, inputs, {"C": gelu_sigmoid_form(x)})
    # Off the bfloat16 grid too: float32 pre-activations between the bfloat16 values.
    dense = np.linspace(-12, 12, 200001, dtype=F32).reshape(1, -1)
    d64 = dense.astype(np.float64)
    exact = 0.5 * d64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (d64 + 0.044715 * d64**3)))
    want = exact.astype(BF16)
    for got in (gelu_tanh_form(dense, 2), gelu_sigmoid_form(dense)):
        assert compare("C", got.astype(BF16), want, problem.tolerance) is None
    # The bias added after the GELU fails on the generator's inputs.
    real = next(c for c in problem.tests if c.name == "127x129x65")
    drawn = problem.generate(real, np.random.default_rng(3))
    ab = drawn["A"].astype(F32) @ drawn["B"].astype(F32)
    assert passes(problem, real, drawn, {"C": gelu_tanh_form(ab + drawn["bias"].astype(F32), 0)})
    assert not passes(problem, real, drawn, {"C": gelu_tanh_form(ab, 0) + drawn["bias"].astype(F32)})


# ---- gemm-w8a8-scaled ----------------------------------------------------------------------------

def w8a8_epilogue(acc: np.ndarray, sa: np.ndarray, sb: np.ndarray, scales_first: bool) -> np.ndarray:
    """The float32 epilogue of an exact int32 sum, both ways kernels order it."""
    a32 = acc.astype(F32)  # one rounding above 2^24
    if scales_first:
        return a32 * (sa[:, None] * sb[None, :]).astype(F32)
    return (a32 * sa[:, None]).astype(F32) * sb[None, :]


def test_w8a8_int32_sum_fits_and_three_float32_roundings_stay_within_one_bfloat16_ulp() -> None:
    problem = load_problem("gemm-w8a8-scaled")
    assert problem.tolerance.ulps == 1 and problem.tolerance.atol == 0
    assert max(case.params["K"] for case in every_case(problem)) * 127**2 < 2**31
    assert (1 + U) ** 3 - 1 < 0.5 * 2.0**-9  # far below half a bfloat16 ulp: the roundings land on neighbours
    case = next(c for c in problem.tests if c.name == "16x72x3000")
    inputs = problem.generate(case, np.random.default_rng(5))
    # Saturated rows and columns: sums of 127^2 K > 2^24, which float32 rounds on conversion.
    inputs["A"][:4] = 127
    inputs["B"][:4] = 127
    inputs["B"][4:8] = -127
    acc = inputs["A"].astype(np.int64) @ inputs["B"].astype(np.int64).T
    assert np.abs(acc).max() > 2**24
    for scales_first in (False, True):
        got = w8a8_epilogue(acc, inputs["a_scale"], inputs["b_scale"], scales_first)
        assert passes(problem, case, inputs, {"C": got})
    # Dequantizing to bfloat16 before a float32-accumulated product fails.
    a = (inputs["A"].astype(F32) * inputs["a_scale"][:, None]).astype(BF16).astype(F32)
    b = (inputs["B"].astype(F32) * inputs["b_scale"][:, None]).astype(BF16).astype(F32)
    assert not passes(problem, case, inputs, {"C": a @ b.T})


# ---- add-rmsnorm-fp8-quant -----------------------------------------------------------------------

FNUZ = ml_dtypes.float8_e4m3fnuz


def add_rmsnorm_quant_float32(inputs: dict[str, np.ndarray], *, left_to_right: bool, reciprocal: bool,
                              fp8_max: float = 240.0, eps_inside: bool = True) -> dict[str, np.ndarray]:
    """The kernel in float32: a left-to-right sum of squares (the worst order for positive terms) or
    NumPy's pairwise one; q by dividing by the scale or multiplying by its reciprocal."""
    h = (inputs["x"].astype(F32) + inputs["residual"].astype(F32)).astype(BF16)
    v, w = h.astype(F32), inputs["weight"].astype(F32)
    cols = v.shape[1]
    squares = np.cumsum(v * v, axis=1, dtype=F32)[:, -1] if left_to_right else (v * v).sum(axis=1, dtype=F32)
    if eps_inside:
        rstd = F32(1) / np.sqrt(squares / F32(cols) + F32(1e-5))
    else:
        rstd = F32(1) / (np.sqrt(squares / F32(cols)) + F32(1e-5))
    y = v * w * rstd[:, None]
    scale = (np.abs(y).max(axis=1) / F32(fp8_max)).astype(F32)
    ratio = y * (F32(1) / scale)[:, None] if reciprocal else y / scale[:, None]
    return {"residual_out": h, "q": np.clip(ratio, -240, 240).astype(FNUZ), "scale": scale}


def test_add_rmsnorm_fp8_quant_bound_holds_on_every_case() -> None:
    problem = load_problem("add-rmsnorm-fp8-quant")
    tol = problem.tolerance
    largest = max(case.params["cols"] for case in every_case(problem))
    assert largest <= 8192
    # The scale: the sum's (cols - 1) u, halved by the square root, and 8 more roundings; twice that.
    assert 2 * ((largest - 1) * U / 2 + 8 * U) <= tol.rtol
    assert tol.ulps == 1 and tol.atol == 0
    assert tol.rtol < 0.25 * 2.0**-8  # a quarter of a bfloat16 ulp at most: residual_out stays exact


def test_add_rmsnorm_fp8_quant_float32_kernels_pass_and_the_ocp_maximum_fails() -> None:
    problem = load_problem("add-rmsnorm-fp8-quant")
    for name in ("64x4097", "1000x128"):
        case = next(c for c in problem.tests if c.name == name)
        inputs = problem.generate(case, np.random.default_rng(9))
        exact_sum = inputs["x"].astype(np.float64) + inputs["residual"].astype(np.float64)
        assert np.array_equal((inputs["x"].astype(F32) + inputs["residual"].astype(F32)).astype(np.float64), exact_sum)
        for left_to_right in (False, True):
            for reciprocal in (False, True):
                got = add_rmsnorm_quant_float32(inputs, left_to_right=left_to_right, reciprocal=reciprocal)
                assert passes(problem, case, inputs, got), (name, left_to_right, reciprocal)
        assert not passes(problem, case, inputs, add_rmsnorm_quant_float32(inputs, left_to_right=False,
                                                                           reciprocal=False, fp8_max=448.0))
        assert not passes(problem, case, inputs, add_rmsnorm_quant_float32(inputs, left_to_right=False,
                                                                           reciprocal=False, eps_inside=False))


# ---- rmsnorm-bwd-bf16 ----------------------------------------------------------------------------

def rmsnorm_bwd_float32(inputs: dict[str, np.ndarray], *, sequential: bool, bf16_dweight: bool = False,
                        rstd_in_sum: bool = True) -> dict[str, np.ndarray]:
    """The kernel in float32: row sums and column sums left to right (sequential) or NumPy's pairwise
    ones, columns walked backwards in the sequential case (a different order from the reference's)."""
    g, x, w = inputs["dy"].astype(F32), inputs["x"].astype(F32), inputs["weight"].astype(F32)
    rstd = inputs["rstd"][:, None]
    xhat = x * rstd
    terms = w * g * (xhat if rstd_in_sum else x)
    row_sum = np.cumsum(terms, axis=1, dtype=F32)[:, -1] if sequential else terms.sum(axis=1, dtype=F32)
    dx = rstd * (w * g - xhat * (row_sum / F32(x.shape[1]))[:, None])
    column_terms = (g * xhat)[::-1]
    if bf16_dweight:
        acc = np.zeros(x.shape[1], dtype=BF16)
        for row in column_terms:
            acc = (acc.astype(F32) + row).astype(BF16)
        dweight = acc.astype(F32)
    else:
        dweight = np.cumsum(column_terms, axis=0, dtype=F32)[-1] if sequential else column_terms.sum(axis=0, dtype=F32)
    return {"dx": dx, "dweight": dweight}


def test_rmsnorm_bwd_bound_holds_on_every_case() -> None:
    problem = load_problem("rmsnorm-bwd-bf16")
    tol = problem.tolerance
    cols = max(case.params["cols"] for case in every_case(problem))
    rows = max(case.params["rows"] for case in every_case(problem))
    assert 2 * 13.5 * (cols + 9) * U <= tol.atol
    assert 2 * (rows + 3) * U <= tol.rtol
    assert tol.rtol <= 0.51 * 2.0**-8  # about half a bfloat16 ulp more for dx, at most
    assert tol.ulps == 1
    case, inputs = case_and_inputs(problem, "17x1000", 4)
    xhat = inputs["x"].astype(np.float64) * inputs["rstd"].astype(np.float64)[:, None]
    assert np.abs(xhat).max() <= 3 and inputs["rstd"].max() <= 1 and np.abs(inputs["dy"].astype(F32)).max() <= 1
    column_terms = inputs["dy"].astype(np.float64) * xhat
    assert one_sign_per_column(column_terms)


def test_rmsnorm_bwd_float32_kernels_pass_and_the_bugs_fail() -> None:
    problem = load_problem("rmsnorm-bwd-bf16")
    for name in ("64x4097", "1000x128"):
        case, inputs = case_and_inputs(problem, name, 8)
        for sequential in (False, True):
            assert passes(problem, case, inputs, rmsnorm_bwd_float32(inputs, sequential=sequential)), name
    case, inputs = case_and_inputs(problem, "1000x128", 8)
    assert not passes(problem, case, inputs, rmsnorm_bwd_float32(inputs, sequential=True, bf16_dweight=True))
    case, inputs = case_and_inputs(problem, "3x7", 8)
    assert not passes(problem, case, inputs, rmsnorm_bwd_float32(inputs, sequential=False, rstd_in_sum=False))


# ---- layernorm-bwd-bf16 --------------------------------------------------------------------------

def layernorm_bwd_float32(inputs: dict[str, np.ndarray], *, sequential: bool, with_c2: bool = True,
                          centred_c1: bool = True, bf16_dbias: bool = False) -> dict[str, np.ndarray]:
    """The kernel in float32: row and column sums left to right (sequential, columns and rows walked
    backwards: a different order from the reference's) or NumPy's pairwise ones."""
    g, x, w = inputs["dy"].astype(F32), inputs["x"].astype(F32), inputs["weight"].astype(F32)
    mean, rstd = inputs["mean"][:, None], inputs["rstd"][:, None]
    xhat = (x - mean) * rstd
    wdy = w * g
    cols = F32(x.shape[1])

    def row_mean(terms: np.ndarray) -> np.ndarray:
        total = np.cumsum(terms[:, ::-1], axis=1, dtype=F32)[:, -1] if sequential else terms.sum(axis=1, dtype=F32)
        return (total / cols)[:, None]

    c1 = row_mean(wdy * (xhat if centred_c1 else x * rstd))
    c2 = row_mean(wdy) if with_c2 else F32(0)
    dx = rstd * (wdy - xhat * c1 - c2)

    def column_sum(terms: np.ndarray) -> np.ndarray:
        return np.cumsum(terms[::-1], axis=0, dtype=F32)[-1] if sequential else terms.sum(axis=0, dtype=F32)

    if bf16_dbias:
        acc = np.zeros(x.shape[1], dtype=BF16)
        for row in g[::-1]:
            acc = (acc.astype(F32) + row).astype(BF16)
        dbias = acc.astype(F32)
    else:
        dbias = column_sum(g)
    return {"dx": dx, "dweight": column_sum(g * xhat), "dbias": dbias}


def test_layernorm_bwd_bound_holds_on_every_case() -> None:
    problem = load_problem("layernorm-bwd-bf16")
    tol = problem.tolerance
    cols = max(case.params["cols"] for case in every_case(problem))
    rows = max(case.params["rows"] for case in every_case(problem))
    assert 2 * (10 * cols + 100) * U <= tol.atol
    assert 2 * (rows + 3) * U <= tol.rtol
    assert tol.rtol <= 0.51 * 2.0**-8  # about half a bfloat16 ulp more for dx, at most
    assert tol.ulps == 1
    assert rows * 2.0**8 < 2.0**24  # dbias: partial sums of multiples of 2^-8 below rows, exact in float32
    for name in ("3x7", "64x4097", "256x8192"):
        case, inputs = case_and_inputs(problem, name, 4)
        centred = inputs["x"].astype(np.float64) - inputs["mean"].astype(np.float64)[:, None]
        xhat = centred * inputs["rstd"].astype(np.float64)[:, None]
        dy = inputs["dy"].astype(np.float64)
        assert np.abs(xhat).max() <= 5.5 and inputs["rstd"].max() <= 1.0045
        assert np.all(np.abs(xhat).sum(axis=1) <= case.params["cols"])
        assert np.abs(dy).max() <= 1 and np.all(dy * 256 == np.round(dy * 256))
        column_terms = dy * xhat
        assert one_sign_per_column(column_terms)


def test_layernorm_bwd_float32_kernels_pass_and_the_bugs_fail() -> None:
    problem = load_problem("layernorm-bwd-bf16")
    for name in ("64x4097", "1000x128"):
        case, inputs = case_and_inputs(problem, name, 8)
        for sequential in (False, True):
            got = layernorm_bwd_float32(inputs, sequential=sequential)
            assert passes(problem, case, inputs, got), name
            assert np.array_equal(got["dbias"], problem.expected(case, inputs)["dbias"])  # exact
    case, inputs = case_and_inputs(problem, "1000x128", 8)
    assert not passes(problem, case, inputs, layernorm_bwd_float32(inputs, sequential=True, bf16_dbias=True))
    case, inputs = case_and_inputs(problem, "3x7", 8)
    assert not passes(problem, case, inputs, layernorm_bwd_float32(inputs, sequential=False, with_c2=False))
    assert not passes(problem, case, inputs, layernorm_bwd_float32(inputs, sequential=False, centred_c1=False))

"""gemm-residual-bf16's check rule, derived in its problem.yaml: the grids keep every partial sum (the residual's
too) exact at every case's K, a fused kernel equals the reference bit for bit, and an unfused one (the product
rounded to bfloat16, then the residual added) stays within {ulps: 2, atol: U(16)} at every pair of values the
bound's two cases allow, and within the bias on the generator's inputs; the wrong kernels fail."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from agent.judging.verify import BIAS_MIN_ELEMENTS, compare
from agent.problems.bundle import Case, Problem
from tests.agent.conftest import load_problem

F32 = np.float32
BF16 = ml_dtypes.bfloat16
SLUG = "gemm-residual-bf16"


def every_case(problem: Problem) -> list[Case]:
    return [*problem.tests, *problem.benchmarks, *problem.ranked]


def spacing(x: float) -> float:
    """bfloat16's spacing at |x| (2^(e - 7) for |x| in [2^e, 2^(e+1)))."""
    return 2.0 ** (math.floor(math.log2(abs(x))) - 7)


def rn(x: np.ndarray) -> np.ndarray:
    """Round to nearest even bfloat16, back in float32."""
    return np.asarray(x, dtype=F32).astype(BF16).astype(F32)


def drawn(problem: Problem, name: str, seed: int) -> tuple[Case, dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """A test case's inputs, the exact float32 product s and residual r."""
    case = next(c for c in problem.tests if c.name == name)
    inputs = problem.generate(case, np.random.default_rng(seed))
    s = inputs["A"].astype(F32) @ inputs["B"].astype(F32).T
    return case, inputs, s, inputs["residual"].astype(F32)


def judged(problem: Problem, case: Case, inputs: dict[str, np.ndarray], got: np.ndarray) -> str | None:
    want = problem.expected(case, inputs)["C"]
    return compare("C", got.astype(BF16), want, problem.tolerance)


def test_the_sums_are_exact_at_every_case_and_the_rule_is_the_derived_one() -> None:
    problem = load_problem(SLUG)
    R = problem.module.RESIDUAL_RANGE
    for case in every_case(problem):
        K = case.params["K"]
        a, b = problem.module.grid_bits(K)
        assert a == 8 and 0 <= b <= 8 and a + b >= 4, case.name  # the residual's 2^-4 grid is a multiple of 2^-(a+b)
        units = 2 ** (24 - a - b)  # float32 holds every multiple of 2^-(a+b) up to this magnitude
        assert K + R <= units, case.name  # the fused sums
        # The unfused r + rn(s): |s| <= K, so |rn(s)| <= rn(K), which is above K where K rounds up.
        assert float(rn(np.float32(K))) + R <= units, case.name
        assert a + b + math.ceil(math.log2(max(K, float(rn(np.float32(K)))) + R)) <= 24, case.name
    # Where K rounds up to a power of two, K + R alone would allow a bit too many (the review's K = 8176).
    assert float(rn(np.float32(8176))) == 8192 and math.ceil(math.log2(8176 + R)) == 13
    a, b = problem.module.grid_bits(8176)
    assert (8192 + R) * 2 ** (a + b) <= 2**24
    tol = problem.tolerance
    assert (tol.ulps, tol.atol, tol.bias, tol.rtol) == (2, spacing(R), 0.25, 0)
    # The bias's Hoeffding bound (docs/problems.md) at u = 2, for the fewest elements it judges.
    assert 2 * math.exp(-BIAS_MIN_ELEMENTS * tol.bias**2 / (2 * tol.ulps**2)) < 1e-13


def test_an_unfused_kernel_meets_the_bound_at_every_residual_and_product() -> None:
    """Every residual of the grid against every product on a 2^-10 grid with |s| < 2R + 16 (both of the
    derivation's cases, and the binades the product's rounding crosses), and 16384 drawn up to K = 28672's
    reach on its grid."""
    problem = load_problem(SLUG)
    R = problem.module.RESIDUAL_RANGE
    r = (np.arange(-16 * R, 16 * R + 1) / 16).astype(F32)  # every residual: multiples of 2^-4 in [-R, R]
    reach = 2 * R + 16
    s_small = (np.arange(-reach * 1024, reach * 1024 + 1) / 1024).astype(F32)
    rng = np.random.default_rng(0)
    s_large = (rng.integers(-28688 * 512, 28688 * 512, size=1 << 14) / 512).astype(F32)  # K = 28672's grid
    tol = problem.tolerance
    for s in (s_small, s_large):
        for block in np.array_split(r, 16):
            v = block[:, None] + s[None, :]  # exact: both on float32's grid (the products' partial sums are)
            want = v.astype(BF16)
            unfused = (block[:, None] + rn(s)[None, :]).astype(BF16)
            assert compare("C", unfused, want, tol) is None
    # Where the residual cancels the product: the rounding of s is the whole error, and it needs the atol.
    v, s = F32(-16 + 16.5625), F32(16.5625)
    assert abs(float(rn(np.float32(-16) + rn(s))) - float(rn(v))) == 2**-4 > 2 * spacing(float(rn(v)))


def test_fused_and_unfused_kernels_pass_on_the_generators_inputs_and_the_wrong_ones_fail() -> None:
    problem = load_problem(SLUG)
    assert next(c for c in problem.tests if c.name == "127x129x65").params["M"] * 129 >= BIAS_MIN_ELEMENTS
    for name in ("127x129x65", "40x72x3000"):
        for seed in (1, 2):
            case, inputs, s, r = drawn(problem, name, seed)
            assert judged(problem, case, inputs, r + s) is None  # fused: exact
            assert judged(problem, case, inputs, r + rn(s)) is None  # unfused: two roundings, no bias
            # A fused kernel that rounds toward zero (bits >> 16) is within every element's bound, not the mean's
            # (judged on outputs of BIAS_MIN_ELEMENTS or more).
            truncated = ((r + s).view(np.uint32) & 0xFFFF0000).view(F32)
            if s.size >= BIAS_MIN_ELEMENTS:
                assert "on average" in str(judged(problem, case, inputs, truncated))
            assert judged(problem, case, inputs, s) is not None  # the residual forgotten
            assert judged(problem, case, inputs, s + r[:1]) is not None  # wrong.py: the residual as a bias


def test_a_bfloat16_accumulator_started_at_the_residual_fails() -> None:
    """wrong.cpp's sum: C = r, then C = rn(C + a b) for every k."""
    problem = load_problem(SLUG)
    case, inputs, s, r = drawn(problem, "1x130x64", 3)
    A, B = inputs["A"].astype(F32), inputs["B"].astype(F32)
    acc = r.copy()
    for k in range(case.params["K"]):
        acc = rn(acc + A[:, k:k + 1] * B[:, k][None, :])
    assert judged(problem, case, inputs, acc) is not None

"""References sped up by a faster arithmetic must still give the exact answer they promise."""

from __future__ import annotations

import numpy as np

from tests.agent.conftest import load_problem


def test_gemm_int8s_float64_reference_is_exact_at_the_extremes_of_its_largest_k():
    problem = load_problem("gemm-int8")
    K = max(case.params["K"] for case in (*problem.tests, *problem.benchmarks, *problem.ranked))
    rng = np.random.default_rng(7)
    A = np.full((3, K), -128, dtype=np.int8)
    A[1] = rng.integers(-128, 128, K, dtype=np.int8)
    A[2, ::2] = 127  # partial sums that swing up and down by 2^14 at every step
    B = np.full((K, 4), -128, dtype=np.int8)
    B[:, 1] = rng.integers(-128, 128, K, dtype=np.int8)
    B[1::2, 2] = 127
    got = problem.module.reference({"A": A, "B": B}, {"M": 3, "N": 4, "K": K})["C"]
    exact = A.astype(np.int64) @ B.astype(np.int64)  # NumPy's own integer loop: exact, slow
    assert got.dtype.kind == "i"
    assert np.array_equal(got, exact)
    assert exact[0, 0] == 128 * 128 * K  # the largest sum the type rule allows for

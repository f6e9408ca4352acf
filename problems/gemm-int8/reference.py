import numpy as np


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    return {"A": rng.integers(-128, 128, (M, K), dtype=np.int8), "B": rng.integers(-128, 128, (K, N), dtype=np.int8)}


def reference(inputs, params):
    # Float64 BLAS, exact: each product is an integer of magnitude at most 2^14 and every partial sum,
    # in whatever order BLAS adds, one of at most 2^14 K < 2^53, which a double holds. NumPy's integer
    # matmul has no BLAS: single-threaded and unblocked, minutes for the 8192-cube benchmark.
    return {"C": (inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)).astype(np.int64)}

import math

import ml_dtypes
import numpy as np

STEP_BITS = 3  # values are multiples of 2^-3 ...
LARGEST = 16   # ... of magnitude at most 16 / 8 = 2 (every one an fp8 E4M3 value: 4 significant bits)


def grid(rng, shape):
    """Uniform among the multiples of 1/8 in [-2, 2], as fp8 E4M3 FNUZ (the 33 values once, then
    indexed)."""
    values = (np.arange(-LARGEST, LARGEST + 1) / 2**STEP_BITS).astype(ml_dtypes.float8_e4m3fnuz)
    return values[rng.integers(0, 2 * LARGEST + 1, size=shape, dtype=np.int16)]


def exact_up_to(K):
    """Whether every float32 partial sum of K products is exact: the products are multiples of
    2^-6 of magnitude <= 4 = 2^8 such units, so any partial sum is an integer number of units below
    K 2^8, which float32's 24 bits hold while K 2^8 <= 2^24."""
    return math.log2(K) + 2 * math.log2(LARGEST) <= 24


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    return {"A": grid(rng, (M, K)), "B": grid(rng, (K, N))}


def reference(inputs, params):
    # Exact: every partial sum is a float32 (exact_up_to), and float64 BLAS sums them exactly too.
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)}

import math

import ml_dtypes
import numpy as np


def grid(rng, shape, bits, dtype):
    """Uniform multiples of 2^-bits in [-1, 1] (exact in bfloat16 for bits <= 8): the 2^(bits+1) + 1 values once, then
    indexed (a cast of the whole array to bfloat16 costs several times more)."""
    n = 1 << bits
    values = (np.arange(-n, n + 1) / n).astype(dtype)
    return values[rng.integers(0, 2 * n + 1, size=shape, dtype=np.int16)]


def grid_bits(K, cap):
    """Bits (a, b) of A's and B's grids for a sum of K products: a + b + ceil(log2 K) <= 24, so every
    partial sum, in any order, is an integer multiple of 2^-(a+b) of magnitude at most K 2^(a+b) <=
    2^24 and float32 holds it exactly. A keeps at least 8 bits (its values fit neither int8 nor fp8)."""
    total = 24 - math.ceil(math.log2(K))
    a = min(cap, max(8, (total + 1) // 2))
    return a, min(cap, total - a)


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    a, b = grid_bits(K, 8)
    return {"A": grid(rng, (M, K), a, ml_dtypes.bfloat16), "B": grid(rng, (K, N), b, ml_dtypes.bfloat16)}


def reference(inputs, params):
    # Exact: every partial sum of the products is a float32 (grid_bits), whatever order BLAS sums in.
    # The judge rounds the result once, to nearest even, to bfloat16.
    return {"C": inputs["A"].astype(np.float32) @ inputs["B"].astype(np.float32)}

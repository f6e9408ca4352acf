import math

import ml_dtypes
import numpy as np

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
ROWS_PER_CHUNK = 256  # float64 temporaries of a chunk of rows, not of the whole output


def grid(rng, shape, bits):
    """Uniform multiples of 2^-bits in [-1, 1] (exact in bfloat16 for bits <= 8): the 2^(bits+1) + 1 values once, then
    indexed (a cast of the whole array to bfloat16 costs several times more)."""
    n = 1 << bits
    values = (np.arange(-n, n + 1) / n).astype(ml_dtypes.bfloat16)
    return values[rng.integers(0, 2 * n + 1, size=shape, dtype=np.int16)]


def grid_bits(K):
    """Bits (a, b) of A's and B's grids: a + b + ceil(log2 (K + 1)) <= 24, so every partial sum of the K products
    and the bias (a multiple of 2^-8, a + b >= 8), in any order, is an integer multiple of 2^-(a+b) of magnitude
    at most (K + 1) 2^(a+b) <= 2^24: float32 holds it exactly. A keeps 8 bits (neither int8 nor fp8 holds it)."""
    total = 24 - math.ceil(math.log2(K + 1))
    a = min(8, max(8, (total + 1) // 2))
    return a, min(8, total - a)


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    a, b = grid_bits(K)
    return {"A": grid(rng, (M, K), a), "B": grid(rng, (K, N), b), "bias": grid(rng, (N,), 8)}


def reference(inputs, params):
    # The pre-activation is exact in float32 (grid_bits), whatever order BLAS sums in; GELU in float64, kept as
    # float32 (within 2^-24 relative, far below a bfloat16 ulp); the judge rounds it to bfloat16.
    A, B = inputs["A"].astype(np.float32), inputs["B"].astype(np.float32)
    bias = inputs["bias"].astype(np.float32)
    out = np.empty((A.shape[0], B.shape[1]), dtype=np.float32)
    for start in range(0, A.shape[0], ROWS_PER_CHUNK):
        x = (A[start:start + ROWS_PER_CHUNK] @ B + bias).astype(np.float64)
        out[start:start + ROWS_PER_CHUNK] = 0.5 * x * (1.0 + np.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
    return {"C": out}

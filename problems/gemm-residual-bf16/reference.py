import math

import ml_dtypes
import numpy as np

# The residual's grid: multiples of 2^-4 in [-16, 16] (k / 16 with |k| <= 256: 8 significant bits, exact in
# bfloat16). The residual stream is as large as the projection's output, as in a transformer.
RESIDUAL_RANGE = 16


def grid(rng, shape, bits, scale=1):
    """Uniform multiples of 2^-bits in [-1, 1], times `scale` (a power of two; exact in bfloat16 for bits <= 8):
    the 2^(bits+1) + 1 values once, then indexed (a cast of the whole array to bfloat16 costs several times more)."""
    n = 1 << bits
    values = (np.arange(-n, n + 1) * (scale / n)).astype(ml_dtypes.bfloat16)
    return values[rng.integers(0, 2 * n + 1, size=shape, dtype=np.int16)]


def grid_bits(K):
    """Bits (a, b) of A's and B's grids: a + b + ceil(log2 (max(K, rn(K)) + 16)) <= 24 (rn(K): K rounded to nearest
    even bfloat16, the most an unfused kernel's rounded product reaches; it exceeds K where K rounds up, to a power
    of two at K = 8176 for one), so every partial sum of the K products and the residual (a multiple of 2^-4 of
    magnitude <= 16; a + b >= 8), in any order, and the residual plus the product rounded to bfloat16, are integer
    multiples of 2^-(a+b) of magnitude at most (max(K, rn(K)) + 16) 2^(a+b) <= 2^24: float32 holds them exactly.
    A keeps 8 bits (neither int8 nor fp8 holds it)."""
    reach = max(K, float(ml_dtypes.bfloat16(K))) + RESIDUAL_RANGE
    total = 24 - math.ceil(math.log2(reach))
    return 8, min(8, total - 8)


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    a, b = grid_bits(K)
    # The residual: multiples of 2^-8 in [-1, 1] times 16, i.e. of 2^-4 in [-16, 16].
    return {"A": grid(rng, (M, K), a), "B": grid(rng, (N, K), b),
            "residual": grid(rng, (M, N), 8, RESIDUAL_RANGE)}


def reference(inputs, params):
    # Exact in float32 (grid_bits), whatever order BLAS sums in, and so is the residual's add: the judge rounds
    # the exact value once, to nearest even, to bfloat16.
    A, B = inputs["A"].astype(np.float32), inputs["B"].astype(np.float32)
    out = A @ B.T
    out += inputs["residual"].astype(np.float32)
    return {"C": out}

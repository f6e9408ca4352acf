import math

import ml_dtypes
import numpy as np


def grid_bits(K):
    """Bits (a, b) of X's and W's grids for a sum of K products: a + b + ceil(log2 K) <= 24, so every
    partial sum, in any order, is an integer multiple of 2^-(a+b) of magnitude at most K 2^(a+b) <=
    2^24 and float32 holds it exactly. X keeps 8 bits (its values fit neither int8 nor fp8)."""
    return 8, min(8, 16 - math.ceil(math.log2(K)))


def grid(rng, shape, bits):
    """Uniform multiples of 2^-bits in [-1, 1] as bfloat16 (exact for bits <= 8): the 2^(bits+1) + 1
    values once, then indexed (no float32 copy of W, up to a gigabyte)."""
    n = 1 << bits
    values = (np.arange(-n, n + 1) / n).astype(ml_dtypes.bfloat16)
    return values[rng.integers(0, 2 * n + 1, size=shape, dtype=np.int16)]


def generate(params, rng):
    R, N, K, E = params["R"], params["N"], params["K"], params["E"]
    a, b = grid_bits(K)
    # Rows come grouped by expert, as moe-permute leaves them, with uneven group sizes (popularity
    # ~ 1 / rank^0.8, some experts may get none); with `shuffled`, in random order.
    popularity = 1.0 / np.arange(1, E + 1) ** 0.8
    ids = np.sort(rng.choice(E, size=R, p=popularity[rng.permutation(E)] / popularity.sum())).astype(np.int32)
    if params.get("shuffled"):
        ids = rng.permutation(ids)
    W = np.empty((E, N, K), dtype=ml_dtypes.bfloat16)
    for e in range(E):  # expert by expert: no temporary of the whole weight
        W[e] = grid(rng, (N, K), b)
    return {"X": grid(rng, (R, K), a), "W": W, "expert_ids": ids}


def reference(inputs, params):
    R, N = params["R"], params["N"]
    ids = inputs["expert_ids"]
    Y = np.empty((R, N), dtype=np.float32)
    for e in np.unique(ids):
        rows = np.nonzero(ids == e)[0]
        # Exact: every partial sum is a float32 (grid_bits), whatever order BLAS sums in.
        Y[rows] = inputs["X"][rows].astype(np.float32) @ inputs["W"][e].astype(np.float32).T
    return {"Y": Y}

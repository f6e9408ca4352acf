import math

import numpy as np

GROUP = 128  # weights of a row that share one scale


def grid_bits(K):
    """Bits (bx, ms): x holds multiples of 2^-bx in [-1, 1] and the scales ms significant bits (j 2^-(ms+6),
    j in [2^(ms-1), 2^ms]: scales in [2^-7, 2^-6]). A term (q - 8) s x is an integer multiple of
    2^-(bx+ms+6) of magnitude at most 2^(3+ms+bx) such units, so with bx + ms + 3 + ceil(log2 K) <= 24
    every partial sum, in any order, of any subset of the K terms is exact in float32 (and so is
    every dequantized weight, (q - 8) s: 3 + ms <= 11 bits, exact in half too)."""
    total = 21 - math.ceil(math.log2(K))
    ms = min(8, total // 2)
    return min(10, total - ms), ms


def generate(params, rng):
    N, K = params["N"], params["K"]
    bx, ms = grid_bits(K)
    n = 1 << bx
    x = (np.arange(-n, n + 1) / n).astype(np.float16)[rng.integers(0, 2 * n + 1, size=K)]
    j = rng.integers(1 << (ms - 1), (1 << ms) + 1, size=(N, -(-K // GROUP)), dtype=np.int32)
    scales = (j.astype(np.float32) * np.float32(2.0 ** -(ms + 6))).astype(np.float16)
    W = rng.integers(0, 256, size=(N, K // 2), dtype=np.uint8)
    return {"x": x, "W": W, "scales": scales}


def reference(inputs, params):
    N, K = params["N"], params["K"]
    x = inputs["x"].astype(np.float32)
    y = np.empty(N, dtype=np.float32)
    for r0 in range(0, N, 2048):  # rows in chunks: the dequantized weights of the largest case are 1.9 GB
        packed = inputs["W"][r0 : r0 + 2048]
        q = np.empty((packed.shape[0], K), dtype=np.float32)
        q[:, 0::2] = packed & 15  # low nibble: the even k
        q[:, 1::2] = packed >> 4
        q -= 8
        q *= np.repeat(inputs["scales"][r0 : r0 + 2048].astype(np.float32), GROUP, axis=1)[:, :K]
        y[r0 : r0 + 2048] = q @ x  # exact in float32 (grid_bits), in whatever order BLAS sums
    return {"y": y}

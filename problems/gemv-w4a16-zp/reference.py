import math

import numpy as np

GROUP = 128  # weights of a row that share one scale and one zero point
ROWS_PER_CHUNK = 2048  # dequantized weights of a chunk of output rows, not of the whole matrix


def grid_bits(K):
    """Bits (bx, ms): x holds multiples of 2^-bx in [-1, 1] and the scales ms significant bits (j 2^-(ms+6),
    j in [2^(ms-1), 2^ms]: scales in [2^-7, 2^-6]). A term (q - z) s x, |q - z| <= 15, is an integer
    multiple of 2^-(bx+ms+6) of magnitude below 2^(4+ms+bx) such units, so with
    bx + ms + 4 + ceil(log2 K) <= 24 every partial sum, in any order, of any subset of the K terms is
    exact in float32; ms <= 7 keeps every dequantized weight (q - z) s (4 + ms bits) exact in half."""
    total = 20 - math.ceil(math.log2(K))
    ms = min(7, total // 2)
    return min(10, total - ms), ms


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    bx, ms = grid_bits(K)
    groups = -(-K // GROUP)
    n = 1 << bx
    x = (np.arange(-n, n + 1) / n).astype(np.float16)[rng.integers(0, 2 * n + 1, size=(M, K))]
    j = rng.integers(1 << (ms - 1), (1 << ms) + 1, size=(N, groups), dtype=np.int32)
    scales = (j.astype(np.float32) * np.float32(2.0 ** -(ms + 6))).astype(np.float16)
    return {"x": x, "W": rng.integers(0, 256, size=(N, K // 2), dtype=np.uint8), "scales": scales,
            "zeros": rng.integers(0, 16, size=(N, groups), dtype=np.uint8)}


def reference(inputs, params):
    M, N, K = params["M"], params["N"], params["K"]
    x = inputs["x"].astype(np.float32)
    y = np.empty((M, N), dtype=np.float32)
    for r0 in range(0, N, ROWS_PER_CHUNK):
        r1 = r0 + ROWS_PER_CHUNK
        packed = inputs["W"][r0:r1]
        q = np.empty((packed.shape[0], K), dtype=np.float32)
        q[:, 0::2] = packed & 15  # low nibble: the even k
        q[:, 1::2] = packed >> 4
        q -= np.repeat(inputs["zeros"][r0:r1].astype(np.float32), GROUP, axis=1)[:, :K]
        q *= np.repeat(inputs["scales"][r0:r1].astype(np.float32), GROUP, axis=1)[:, :K]
        y[:, r0:r1] = x @ q.T  # exact in float32 (grid_bits), in whatever order BLAS sums
    return {"y": y}

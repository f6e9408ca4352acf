import math

import ml_dtypes
import numpy as np

BLOCK = 128  # a scale covers 128 values of k (and, for B, 128 columns n)
ATOL = 2.0**-8  # problem.yaml's check: {ulps: 2, atol: ATOL}
FP8_MAX = 240.0  # the largest fp8 E4M3 FNUZ value


def scale_base(K):
    """The smallest scale s of a case: scales are drawn in [s, 2 s), so every dequantized product
    |a sa b sb| <= P = (240 * 2 s)^2, and an honest float32 kernel is off by at most
    gamma_(K+3) K P (see problem.yaml); s makes that 0.9 ATOL (the rest: the reference's own error)."""
    n = K + 3
    gamma = n * 2.0**-24 / (1 - n * 2.0**-24)
    return math.sqrt(0.9 * ATOL / (gamma * K)) / (2 * FP8_MAX)


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    kb, nb = -(-K // BLOCK), -(-N // BLOCK)
    s = scale_base(K)

    def fp8(shape):  # uniform in [-240, 240], rounded to fp8 E4M3 FNUZ
        return (rng.random(shape, dtype=np.float32) * (2 * FP8_MAX) - FP8_MAX).astype(ml_dtypes.float8_e4m3fnuz)

    def scales(shape):  # uniform in [s, 2 s)
        return (s * (1 + rng.random(shape))).astype(np.float32)

    # A (M x K) and B (N x K) are stored column-major, i.e. as [K, M] and [K, N] row-major; so are
    # the scales: A_scale (M x K/128) as [K/128, M], B_scale (N/128 x K/128) as [K/128, N/128].
    return {"A": fp8((K, M)), "B": fp8((K, N)), "A_scale": scales((kb, M)), "B_scale": scales((kb, nb))}


def reference(inputs, params):
    N, K = params["N"], params["K"]
    # Dequantized in float64 (exact: 4 + 24 significant bits), multiplied with float64 BLAS: its own
    # error is about K 2^-53 of the sum of |products|, far inside the 0.1 ATOL left for it.
    sa = np.repeat(inputs["A_scale"].astype(np.float64), BLOCK, axis=0)[:K]
    sb = np.repeat(np.repeat(inputs["B_scale"].astype(np.float64), BLOCK, axis=0)[:K], BLOCK, axis=1)[:, :N]
    a = inputs["A"].astype(np.float64) * sa
    b = inputs["B"].astype(np.float64) * sb
    return {"C": a.T @ b}

import ml_dtypes
import numpy as np

BLOCK = 128  # a scale covers 128 values of k (and, for B, 128 columns n)
LARGEST = 15  # fp8 values are k / 8 with |k| <= 15: up to 4 significant bits, every one E4M3's
SCALES = (1.0, 1.5)  # block scales: 1 or 1.5, so a dequantized value k 3 / 16 needs up to 6 bits


def exact_up_to(K):
    """Whether every float32 partial sum of K scaled products is exact. A product a b is a multiple
    of 2^-6 of magnitude <= 225 such units, sa sb a multiple of 2^-2 of at most 2.25 = 9 units, so
    every term a sa b sb, and every partial sum or product of them an honest kernel forms (a sa,
    sa sb, a block's sum of a b scaled by sa sb, split-K partials), is an integer number of 2^-8
    below K 225 9, which float32's 24 bits hold while K 2025 <= 2^24 (K <= 8285)."""
    return K * LARGEST**2 * round(max(SCALES) ** 2 * 4) <= 2**24


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    kb, nb = -(-K // BLOCK), -(-N // BLOCK)
    values = (np.arange(-LARGEST, LARGEST + 1) / 8.0).astype(ml_dtypes.float8_e4m3fnuz)

    def fp8(shape):  # uniform among the 31 values k / 8
        return values[rng.integers(0, values.size, size=shape, dtype=np.int16)]

    def scales(shape):  # 1 or 1.5, each block its own: one scale for a whole row or tensor is wrong
        return np.asarray(SCALES, dtype=np.float32)[rng.integers(0, len(SCALES), size=shape)]

    # A (M x K) and B (N x K) are stored column-major, i.e. as [K, M] and [K, N] row-major; so are
    # the scales: A_scale (M x K/128) as [K/128, M], B_scale (N/128 x K/128) as [K/128, N/128].
    return {"A": fp8((K, M)), "B": fp8((K, N)), "A_scale": scales((kb, M)), "B_scale": scales((kb, nb))}


def reference(inputs, params):
    N, K = params["N"], params["K"]
    # Dequantized in float64 and multiplied with float64 BLAS: exact, as every partial sum is an
    # integer number of 2^-8 below 2^24 (exact_up_to).
    sa = np.repeat(inputs["A_scale"].astype(np.float64), BLOCK, axis=0)[:K]
    sb = np.repeat(np.repeat(inputs["B_scale"].astype(np.float64), BLOCK, axis=0)[:K], BLOCK, axis=1)[:, :N]
    a = inputs["A"].astype(np.float64) * sa
    b = inputs["B"].astype(np.float64) * sb
    return {"C": a.T @ b}

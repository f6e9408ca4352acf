import ml_dtypes
import numpy as np

BLOCK = 128  # a scale covers 128 values of k (and, for W, 128 rows n of one expert)
LARGEST = 15  # fp8 values are k / 8 with |k| <= 15: up to 4 significant bits, every one E4M3's
SCALES = (1.0, 1.5)  # block scales: 1 or 1.5, so a dequantized value k 3 / 16 needs up to 6 bits


def exact_up_to(K):
    """Whether every float32 partial sum of K scaled products is exact. A product x w is a multiple
    of 2^-6 of magnitude <= 225 such units, sx sw a multiple of 2^-2 of at most 2.25 = 9 units, so
    every term x sx w sw, and every partial sum or product of them an honest kernel forms (x sx,
    sx sw, a block's sum of x w scaled by sx sw, split-K partials), is an integer number of 2^-8
    below K 225 9, which float32's 24 bits hold while K 2025 <= 2^24 (K <= 8285)."""
    return K * LARGEST**2 * round(max(SCALES) ** 2 * 4) <= 2**24


def generate(params, rng):
    R, N, K, E = params["R"], params["N"], params["K"], params["E"]
    kb, nb = -(-K // BLOCK), -(-N // BLOCK)
    values = (np.arange(-LARGEST, LARGEST + 1) / 8.0).astype(ml_dtypes.float8_e4m3fnuz)

    def fp8(shape):  # uniform among the 31 values k / 8
        return values[rng.integers(0, values.size, size=shape, dtype=np.uint8)]

    def scales(shape):  # 1 or 1.5, each block its own: one scale per row, expert or tensor is wrong
        return np.asarray(SCALES, dtype=np.float32)[rng.integers(0, len(SCALES), size=shape)]

    # Rows come grouped by expert, as moe-permute leaves them, with uneven group sizes (popularity
    # ~ 1 / rank^0.8, some experts may get none; a decode batch leaves a few rows per expert); with
    # `shuffled`, in random order.
    popularity = 1.0 / np.arange(1, E + 1) ** 0.8
    ids = np.sort(rng.choice(E, size=R, p=popularity[rng.permutation(E)] / popularity.sum())).astype(np.int32)
    if params.get("shuffled"):
        ids = rng.permutation(ids)
    W = np.empty((E, N, K), dtype=ml_dtypes.float8_e4m3fnuz)
    for e in range(E):  # expert by expert: no index array of the whole weight
        W[e] = fp8((N, K))
    # X (R x K) and W (E x N x K) are contiguous along k; X_scale is column-major ([K/128, R], as
    # DeepGEMM and the AMD challenge keep per-token scales), W_scale one per 128 x 128 block of each
    # expert's weight ([E, N/128, K/128]).
    return {"X": fp8((R, K)), "X_scale": scales((kb, R)), "W": W, "W_scale": scales((E, nb, kb)),
            "expert_ids": ids}


def decode(fp8):
    """fp8 E4M3 FNUZ to float32 through a 256-entry table (faster than ml_dtypes' cast)."""
    table = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fnuz).astype(np.float32)
    return table[np.asarray(fp8).view(np.uint8)]


def reference(inputs, params):
    R, N, K = params["R"], params["N"], params["K"]
    ids = inputs["expert_ids"]
    sx = np.repeat(inputs["X_scale"], BLOCK, axis=0)[:K].T  # [R, K]
    x = decode(inputs["X"]) * sx  # exact: 6 significant bits
    Y = np.empty((R, N), dtype=np.float32)
    for e in np.unique(ids):
        rows = np.nonzero(ids == e)[0]
        sw = np.repeat(np.repeat(inputs["W_scale"][e], BLOCK, axis=0)[:N], BLOCK, axis=1)[:, :K]
        # Exact: every partial sum is an integer number of 2^-8 below 2^24 (exact_up_to), a float32,
        # whatever order float32 BLAS sums in.
        Y[rows] = x[rows] @ (decode(inputs["W"][e]) * sw).T
    return {"Y": Y}

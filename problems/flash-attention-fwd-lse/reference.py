import ml_dtypes
import numpy as np


def generate(params, rng):
    B, S, H, Hkv, D = params["B"], params["S"], params["H"], params["Hkv"], params["D"]

    def grid(shape, step, limit):  # uniform multiples of `step` in [-limit, limit] (exact in bfloat16)
        n = int(limit / step)
        values = (np.arange(-n, n + 1) * step).astype(ml_dtypes.bfloat16)  # exact: step is a power of two
        return values[rng.integers(0, 2 * n + 1, size=shape, dtype=np.int16)]

    # As flash-attention-fwd's: Q multiples of 2^-5 in [-8, 8] (k / 32, |k| <= 256: 9 bits with the
    # sign, so no int8 or fp8 QK^T holds Q); K multiples of 2^-7 in [-1, 1]. A dot product over
    # D <= 128 is then a sum of at most 2^7 products, each an integer multiple of 2^-12 of magnitude
    # <= 2^15 units: every partial sum is exact in float32, in any order. The scores
    # s = q.k / sqrt(D) stay within 8 sqrt(D) (about 90), spread about 2.7. V: uniform in [-1, 1].
    return {
        "Q": grid((B, S, H, D), 2.0**-5, 8.0),
        "K": grid((B, S, Hkv, D), 2.0**-7, 1.0),
        "V": (2 * rng.random((B, S, Hkv, D), dtype=np.float32) - 1).astype(ml_dtypes.bfloat16),
    }


def reference(inputs, params):
    B, S, H, Hkv, D = params["B"], params["S"], params["H"], params["Hkv"], params["D"]
    group = H // Hkv
    out = np.empty((B, S, H, D), dtype=np.float64)
    lse = np.empty((B, H, S), dtype=np.float64)
    scale = 1.0 / np.sqrt(D)
    rows = max(1, min(S, 2**21 // S))  # score rows per step: at most 2**21 float64 scores at once, whatever S
    for b in range(B):
        for hk in range(Hkv):
            k = inputs["K"][b, :, hk, :].astype(np.float32)
            v = inputs["V"][b, :, hk, :].astype(np.float64)
            for h in range(hk * group, (hk + 1) * group):
                q = inputs["Q"][b, :, h, :].astype(np.float32)
                for r0 in range(0, S, rows):
                    r1 = min(S, r0 + rows)
                    s = (q[r0:r1] @ k.T).astype(np.float64) * scale  # q.k exact in float32 (see generate)
                    m = s.max(axis=1, keepdims=True)
                    p = np.exp(s - m)
                    total = p.sum(axis=1, keepdims=True)
                    out[b, r0:r1, h, :] = (p @ v) / total
                    lse[b, h, r0:r1] = (m + np.log(total))[:, 0]
    return {"O": out, "LSE": lse}

import ml_dtypes
import numpy as np

PAGE = 64  # tokens per page of the KV cache
DK, DV = 576, 512  # a cached token: 512 latent values (the values, and keys with Q's absorbed part) + 64 rope
FP8_MAX = 14.0  # the largest fp8 value drawn for the cache


def fp8_codes(limit):
    """The E4M3 FNUZ values that are multiples of 1/8 with |x| <= limit: every product with a q of the
    2^-7 grid is a multiple of 2^-10, which keeps q . c8 exact (generate)."""
    values = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fnuz).astype(np.float64)
    keep = np.isfinite(values) & (np.abs(values) <= limit) & (values * 8 == np.round(values * 8))
    return np.flatnonzero(keep).astype(np.uint8)


def generate(params, rng):
    B, H, P = params["B"], params["H"], params["P"]
    # q: multiples of 2^-7 in [-2, 2] (k / 128, |k| <= 256: 9 bits with the sign, so no int8 or fp8
    # holds q), as mla-decode's; the cache: fp8 multiples of 1/8 up to 14, uniform over those codes
    # (log-uniform magnitudes, as fp8 data are). A product q c8 is a multiple of 2^-10 of at most 28,
    # a score's sum of 576 of them at most 16.5M < 2^24 units of 2^-10: q . c8 is exact in float32 in
    # any order, and so is q . c with c = kv_scale c8 for a power-of-two kv_scale.
    q_grid = (np.arange(-256, 257) * 2.0**-7).astype(ml_dtypes.bfloat16).view(np.uint16)
    q = q_grid[rng.integers(0, q_grid.size, size=(B, H, DK), dtype=np.uint16)].view(ml_dtypes.bfloat16)
    codes = fp8_codes(FP8_MAX)
    cache = codes[rng.integers(0, codes.size, size=(B * P, PAGE, DK), dtype=np.uint8)].view(ml_dtypes.float8_e4m3fnuz)
    # Lengths come in pairs that add up to PAGE * P + 1, as mla-decode's: every draw holds
    # B (PAGE * P + 1) / 2 tokens (half a token less with B odd); the first pair is one full sequence
    # and one of a single token.
    lengths = np.empty(B, dtype=np.int32)
    half = rng.integers(1, PAGE * P + 1, size=B // 2)
    half[:1] = PAGE * P
    lengths[:B // 2] = half
    lengths[B - B // 2:] = (PAGE * P + 1 - half)[::-1]
    if B % 2:
        lengths[B // 2] = (PAGE * P + 1) // 2 if B > 1 else PAGE * P
    # Every entry of the block table names a page (those past a sequence's length too), dealt out of
    # the pool in a random order.
    table = rng.permutation(B * P).astype(np.int32).reshape(B, P)
    return {"q": q, "kv_cache": cache, "block_table": table, "seq_lens": lengths}


def reference(inputs, params):
    B, H = params["B"], params["H"]
    scale, kv_scale = (float(np.float32(params[k])) for k in ("scale", "kv_scale"))  # floats to the kernel
    out = np.empty((B, H, DV), dtype=np.float64)
    for b in range(B):
        n = int(inputs["seq_lens"][b])
        pages = inputs["block_table"][b, : -(-n // PAGE)]
        c8 = inputs["kv_cache"][pages].reshape(-1, DK)[:n].astype(np.float32)
        s = (inputs["q"][b].astype(np.float32) @ c8.T).astype(np.float64) * (scale * kv_scale)  # exact q . c8
        p = np.exp(s - s.max(axis=1, keepdims=True))
        out[b] = (p @ c8[:, :DV].astype(np.float64)) * kv_scale / p.sum(axis=1, keepdims=True)
    return {"out": out}

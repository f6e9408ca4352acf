import ml_dtypes
import numpy as np

PAGE = 16  # tokens per page of the KV cache (vLLM's default block size)
D = 128  # head dimension
K_MAX, V_MAX = 60.0, 80.0  # the largest fp8 value drawn for the keys, the values


def fp8_codes(limit):
    """The E4M3 FNUZ values that are multiples of 1/8 with |x| <= limit: every product with a q of the
    2^-7 grid is a multiple of 2^-10, which keeps q . k8 exact (reference.generate)."""
    values = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fnuz).astype(np.float64)
    keep = np.isfinite(values) & (np.abs(values) <= limit) & (values * 8 == np.round(values * 8))
    return np.flatnonzero(keep).astype(np.uint8)


def generate(params, rng):
    B, Hq, Hkv, P = params["B"], params["Hq"], params["Hkv"], params["P"]

    def draw(shape, codes):  # uniform over the allowed fp8 codes: log-uniform magnitudes, as fp8 data are
        picks = rng.integers(0, codes.size, size=shape, dtype=np.uint8)
        return codes[picks].view(ml_dtypes.float8_e4m3fnuz)

    q_grid = (np.arange(-256, 257) * 2.0**-7).astype(ml_dtypes.bfloat16).view(np.uint16)  # 9 bits, not int8
    q = q_grid[rng.integers(0, q_grid.size, size=(B, Hq, D), dtype=np.uint16)].view(ml_dtypes.bfloat16)
    # q: multiples of 2^-7 in [-2, 2]; the caches: fp8 multiples of 1/8 up to 60 (keys) and 80
    # (values). A product q k8 is a multiple of 2^-10 of at most 120, a sum of 128 of them at most
    # 15.7M units of 2^-10 < 2^24: q . k8 is exact in float32 in any order.
    # Lengths come in pairs that add up to PAGE * P + 1, as paged-gqa-decode-bf16's: every draw holds
    # B (PAGE * P + 1) / 2 tokens (half a token less with B odd).
    lengths = np.empty(B, dtype=np.int32)
    half = rng.integers(1, PAGE * P + 1, size=B // 2)
    half[:1] = PAGE * P
    lengths[:B // 2] = half
    lengths[B - B // 2:] = (PAGE * P + 1 - half)[::-1]
    if B % 2:
        lengths[B // 2] = (PAGE * P + 1) // 2 if B > 1 else PAGE * P
    table = rng.permutation(B * P).astype(np.int32).reshape(B, P)
    return {
        "q": q,
        "k_cache": draw((B * P, PAGE, Hkv, D), fp8_codes(K_MAX)),
        "v_cache": draw((B * P, PAGE, Hkv, D), fp8_codes(V_MAX)),
        "block_table": table,
        "seq_lens": lengths,
    }


def reference(inputs, params):
    B, Hq, Hkv = params["B"], params["Hq"], params["Hkv"]
    G = Hq // Hkv  # query heads per KV head: query head h reads KV head h // G
    scale, k_scale, v_scale = (float(np.float32(params[k])) for k in ("scale", "k_scale", "v_scale"))
    out = np.empty((B, Hq, D), dtype=np.float64)
    for b in range(B):
        n = int(inputs["seq_lens"][b])
        pages = inputs["block_table"][b, : -(-n // PAGE)]
        k = inputs["k_cache"][pages].reshape(-1, Hkv, D)[:n].astype(np.float32)  # n x Hkv x D
        v = inputs["v_cache"][pages].reshape(-1, Hkv, D)[:n].astype(np.float64) * v_scale
        q = inputs["q"][b].astype(np.float32).reshape(Hkv, G, D)
        s = np.einsum("hgd,nhd->hgn", q, k).astype(np.float64) * (scale * k_scale)  # exact q . k8
        p = np.exp(s - s.max(axis=2, keepdims=True))
        o = np.einsum("hgn,nhd->hgd", p, v) / p.sum(axis=2, keepdims=True)
        out[b] = o.reshape(Hq, D)
    return {"out": out}

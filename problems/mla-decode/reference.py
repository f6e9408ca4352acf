import ml_dtypes
import numpy as np

PAGE = 64  # tokens per page of the KV cache
DK, DV = 576, 512  # a cached token: 512 latent values (the values, and keys with Q's absorbed part) + 64 rope


def generate(params, rng):
    B, H, P = params["B"], params["H"], params["P"]

    def grid(shape, step, limit):  # uniform multiples of `step` in [-limit, limit] (8 bits: exact in bfloat16)
        n = int(limit / step)
        values = (np.arange(-n, n + 1) * step).astype(ml_dtypes.bfloat16)  # exact: step is a power of two
        return values[rng.integers(0, 2 * n + 1, size=shape, dtype=np.int16)]

    # q: multiples of 2^-7 in [-2, 2] (k / 128, |k| <= 256: 9 bits with the sign, so no int8 or fp8
    # score kernel holds q); the cache: multiples of 2^-6 in [-1, 1]. A score q.k is a sum of 576
    # products, integer multiples of 2^-13 of at most 2^14 units: every partial sum is below 2^24
    # units, exact in float32 in any order. The scores spread over about +-2.2 at scale 0.135.
    # Lengths come in pairs that add up to PAGE * P + 1 (each uniform in 1 .. PAGE * P), so the batch
    # holds B (PAGE * P + 1) / 2 tokens on every draw (half a token less with B odd): the work that
    # problem.yaml's flops and bytes count, never a draw's luck. The first pair is one full sequence
    # and one of a single token.
    lengths = np.empty(B, dtype=np.int32)
    half = rng.integers(1, PAGE * P + 1, size=B // 2)
    half[:1] = PAGE * P
    lengths[:B // 2] = half
    lengths[B - B // 2:] = (PAGE * P + 1 - half)[::-1]
    if B % 2:
        lengths[B // 2] = (PAGE * P + 1) // 2 if B > 1 else PAGE * P
    # Every entry of the block table names a page (those past a sequence's length too); the pages of
    # the pool are dealt out in a random order, as an allocator that has run a while leaves them.
    table = rng.permutation(B * P).astype(np.int32).reshape(B, P)
    return {
        "q": grid((B, H, DK), 2.0**-7, 2.0),
        "kv_cache": grid((B * P, PAGE, DK), 2.0**-6, 1.0),
        "block_table": table,
        "seq_lens": lengths,
    }


def reference(inputs, params):
    B, H = params["B"], params["H"]
    scale = float(np.float32(params["scale"]))  # the kernel receives it as a float
    out = np.empty((B, H, DV), dtype=np.float64)
    for b in range(B):
        n = int(inputs["seq_lens"][b])
        pages = inputs["block_table"][b, : -(-n // PAGE)]
        kv = inputs["kv_cache"][pages].reshape(-1, DK)[:n]
        s = (inputs["q"][b].astype(np.float32) @ kv.astype(np.float32).T).astype(np.float64) * scale  # exact q.k
        p = np.exp(s - s.max(axis=1, keepdims=True))
        out[b] = (p @ kv[:, :DV].astype(np.float64)) / p.sum(axis=1, keepdims=True)
    return {"out": out}

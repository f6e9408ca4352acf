import ml_dtypes
import numpy as np

PAGE = 16  # tokens per page of the KV cache (vLLM's default block size)
D = 128  # head dimension


def generate(params, rng):
    B, Hq, Hkv, P = params["B"], params["Hq"], params["Hkv"], params["P"]

    def grid(shape, step):  # uniform multiples of `step` in [-256 step, 256 step]: 9 bits, exact in bfloat16
        values = (np.arange(-256, 257) * step).astype(ml_dtypes.bfloat16).view(np.uint16)  # a power of two step
        picks = rng.integers(0, values.size, size=shape, dtype=np.uint16)
        return values[picks].view(ml_dtypes.bfloat16)  # a gather of the bits: faster than one of bfloat16s

    # q: multiples of 2^-7 in [-2, 2]; keys and values: multiples of 2^-8 in [-1, 1] (513 values each,
    # so no int8 kernel reproduces them). A score q.k is a sum of 128 products, integer multiples of
    # 2^-15 of at most 2^16 units: every partial sum is below 2^23 units, exact in float32 in any order.
    # Lengths come in pairs that add up to PAGE * P + 1 (each uniform in 1 .. PAGE * P), so the batch
    # holds B (PAGE * P + 1) / 2 tokens on every draw (half a token less with B odd): the work that
    # problem.yaml's flops and bytes count. The first pair is one full sequence and one of one token.
    lengths = np.empty(B, dtype=np.int32)
    half = rng.integers(1, PAGE * P + 1, size=B // 2)
    half[:1] = PAGE * P
    lengths[:B // 2] = half
    lengths[B - B // 2:] = (PAGE * P + 1 - half)[::-1]
    if B % 2:
        lengths[B // 2] = (PAGE * P + 1) // 2 if B > 1 else PAGE * P
    # Every entry of the block table names a page (those past a sequence's length too), dealt out in a
    # random order, as an allocator that has run a while leaves them.
    table = rng.permutation(B * P).astype(np.int32).reshape(B, P)
    return {
        "q": grid((B, Hq, D), 2.0**-7),
        "k_cache": grid((B * P, PAGE, Hkv, D), 2.0**-8),
        "v_cache": grid((B * P, PAGE, Hkv, D), 2.0**-8),
        "block_table": table,
        "seq_lens": lengths,
    }


def reference(inputs, params):
    B, Hq, Hkv = params["B"], params["Hq"], params["Hkv"]
    G = Hq // Hkv  # query heads per KV head: query head h reads KV head h // G
    scale = float(np.float32(params["scale"]))  # the kernel receives it as a float
    out = np.empty((B, Hq, D), dtype=np.float64)
    for b in range(B):
        n = int(inputs["seq_lens"][b])
        pages = inputs["block_table"][b, : -(-n // PAGE)]
        k = inputs["k_cache"][pages].reshape(-1, Hkv, D)[:n].astype(np.float32)  # n x Hkv x D
        v = inputs["v_cache"][pages].reshape(-1, Hkv, D)[:n].astype(np.float64)
        q = inputs["q"][b].astype(np.float32).reshape(Hkv, G, D)
        s = np.einsum("hgd,nhd->hgn", q, k).astype(np.float64) * scale  # exact q.k
        p = np.exp(s - s.max(axis=2, keepdims=True))
        o = np.einsum("hgn,nhd->hgd", p, v) / p.sum(axis=2, keepdims=True)
        out[b] = o.reshape(Hq, D)
    return {"out": out}

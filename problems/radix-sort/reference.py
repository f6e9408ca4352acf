import numpy as np


def generate(params, rng):
    n = params["n"]
    keys = rng.integers(0, 2**32, n, dtype=np.uint32)
    # Half the keys come from a pool of n / 64 values: long runs of equal keys, whose payloads must
    # keep their input order (the sort is stable).
    pool = rng.integers(0, 2**32, max(1, n // 64), dtype=np.uint32)
    repeated = rng.random(n) < 0.5
    keys[repeated] = pool[rng.integers(0, pool.size, int(repeated.sum()))]
    return {"keys": keys, "values": rng.integers(0, 2**32, n, dtype=np.uint32)}


def reference(inputs, params):
    keys, values = inputs["keys"], inputs["values"]
    # Stable: sort (key, input position) pairs packed in 64 bits, all distinct.
    packed = keys.astype(np.uint64) << np.uint64(32)
    packed |= np.arange(keys.size, dtype=np.uint64)
    packed.sort()
    order = (packed & np.uint64(0xFFFFFFFF)).astype(np.int64)
    return {"out_keys": (packed >> np.uint64(32)).astype(np.uint32), "out_values": values[order]}

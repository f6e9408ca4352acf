import numpy as np


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    return {"A": rng.integers(-128, 128, (M, K), dtype=np.int8), "B": rng.integers(-128, 128, (K, N), dtype=np.int8)}


def reference(inputs, params):
    return {"C": inputs["A"].astype(np.int64) @ inputs["B"].astype(np.int64)}

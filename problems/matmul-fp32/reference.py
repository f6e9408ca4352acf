import numpy as np


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    return {
        "A": 2 * rng.random((M, K), dtype=np.float32) - 1,
        "B": 2 * rng.random((K, N), dtype=np.float32) - 1,
    }


def reference(inputs, params):
    # Double precision, so the reference's own rounding does not eat into the tolerance.
    return {"C": (inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)).astype(np.float32)}

import numpy as np


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    return {
        "A": rng.uniform(-1.0, 1.0, (M, K)).astype(np.float32),
        "B": rng.uniform(-1.0, 1.0, (K, N)).astype(np.float32),
    }


def reference(inputs, params):
    # Double precision, so the reference's own rounding does not eat into the tolerance.
    return {"C": (inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)).astype(np.float32)}

import ml_dtypes
import numpy as np


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    # Uniform in [-1, 1], rounded to bfloat16: |a b| <= 1 (the check's bound depends on it).
    return {
        "A": (2 * rng.random((M, K), dtype=np.float32) - 1).astype(ml_dtypes.bfloat16),
        "B": (2 * rng.random((K, N), dtype=np.float32) - 1).astype(ml_dtypes.bfloat16),
    }


def reference(inputs, params):
    # Exact products summed in double, rounded once to bfloat16 (by the judge, to C's type).
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)}

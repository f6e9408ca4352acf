import ml_dtypes
import numpy as np


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    # Uniform in [-2, 2], rounded to fp8 E4M3 FNUZ: |a b| <= 4 (the check's bound depends on it).
    return {
        "A": (4 * rng.random((M, K), dtype=np.float32) - 2).astype(ml_dtypes.float8_e4m3fnuz),
        "B": (4 * rng.random((K, N), dtype=np.float32) - 2).astype(ml_dtypes.float8_e4m3fnuz),
    }


def reference(inputs, params):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)}

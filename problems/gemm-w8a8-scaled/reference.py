import numpy as np


def generate(params, rng):
    M, N, K = params["M"], params["N"], params["K"]
    # Symmetric int8 quantization (values in [-127, 127]) with float32 scales: one per token (row of A)
    # and one per output channel (row of B), drawn from the ranges real per-token and per-channel
    # scales take (max |x| / 127 of activations and weights), not powers of two.
    return {
        "A": rng.integers(-127, 128, (M, K), dtype=np.int8),
        "a_scale": (0.002 + 0.018 * rng.random(M, dtype=np.float32)).astype(np.float32),
        "B": rng.integers(-127, 128, (N, K), dtype=np.int8),
        "b_scale": (0.001 + 0.009 * rng.random(N, dtype=np.float32)).astype(np.float32),
    }


def reference(inputs, params):
    # The integer sum exactly: float64 BLAS, each product at most 2^14 and every partial sum at most 2^14 K < 2^53.
    # (NumPy's integer matmul has no BLAS: minutes for the prefill shapes.) Then both scales in float64;
    # the judge rounds the result once, to nearest even, to bfloat16.
    acc = inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64).T
    return {"C": acc * inputs["a_scale"].astype(np.float64)[:, None] * inputs["b_scale"].astype(np.float64)[None, :]}

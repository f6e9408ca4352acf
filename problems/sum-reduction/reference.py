import numpy as np

TAIL = 4096  # the last TAIL elements are positive ...
LAST = 64.0  # ... and the very last is LAST


def generate(params, rng):
    n = params["n"]
    # Uniform in [-1, 1], except the end: the last TAIL elements are in [1/2, 1] and the last is 64.
    # A kernel that drops the tail beyond a multiple of its block size (B <= TAIL + 1) drops a
    # suffix of t >= 1 elements whose sum is at least 64 + (t - 1) / 2, far beyond the tolerance at
    # every size (0.05 + 1e-4 |sum|, about 1.3 at n = 2^28); with uniform inputs alone one dropped
    # element (|x| <= 1) hid under it at the ranked sizes.
    x = 2 * rng.random(n, dtype=np.float32) - 1
    tail = min(n, TAIL)
    x[n - tail:] = 0.5 + 0.5 * rng.random(tail, dtype=np.float32)
    x[n - 1] = LAST
    return {"input": x}


def reference(inputs, params):
    total = inputs["input"].astype(np.float64).sum()
    return {"output": np.array([total], dtype=np.float32)}

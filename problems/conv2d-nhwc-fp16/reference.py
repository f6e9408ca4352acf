import numpy as np


def generate(params, rng):
    N, H, W, C, K = (params[k] for k in ("N", "H", "W", "C", "K"))
    # Activations are multiples of 1/64 in [-1, 1], weights multiples of 1/64 in [-1/4, 1/4]
    # (both exact in half): every product is a multiple of 2^-12 and every partial sum of 9 C of them
    # (|sum| < 2^12 for C <= 1820) is exact in float32, whatever the order. The check relies on it.
    return {
        "input": (rng.integers(-64, 65, (N, H, W, C)) / 64.0).astype(np.float16),
        "weight": (rng.integers(-16, 17, (K, 3, 3, C)) / 64.0).astype(np.float16),
    }


def reference(inputs, params):
    N, H, W, C, K = (params[k] for k in ("N", "H", "W", "C", "K"))
    x = np.zeros((N, H + 2, W + 2, C))  # zero padding of one pixel on every side
    x[:, 1:-1, 1:-1, :] = inputs["input"]
    w = inputs["weight"].astype(np.float64)
    out = np.zeros((N * H * W, K))
    for r in range(3):
        for s in range(3):
            # Cross-correlation, as deep learning frameworks define convolution: tap (r, s) of the
            # filter meets input pixel (h + r - 1, w + s - 1). Exact in double.
            out += x[:, r:r + H, s:s + W, :].reshape(-1, C) @ w[:, r, s, :].T
    return {"output": out.reshape(N, H, W, K)}

import numpy as np


def generate(params, rng):
    rows, cols = params["rows"], params["cols"]
    x = 2 * rng.random((rows, cols), dtype=np.float32) - 1
    # Rows with large values: exp() without subtracting the row maximum overflows float32
    # (exp(x) > FLT_MAX once x > 88.7).
    x[1::3] *= 100.0          # values in [-100, 100]
    x[2::3] += 1000.0         # values in [999, 1001]
    return {"input": x}


def reference(inputs, params):
    x = inputs["input"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"output": (e / e.sum(axis=1, keepdims=True)).astype(np.float32)}

import numpy as np


def generate(params, rng):
    n, m = params["n"], params["m"]
    return {"input": 2 * rng.random((n, m), dtype=np.float32) - 1}


def reference(inputs, params):
    x = inputs["input"]
    alpha = np.float32(params["alpha"])
    return {"output": np.where(x > 0, x, x * alpha).astype(np.float32)}

import numpy as np


def generate(params, rng):
    n, m = params["n"], params["m"]
    return {"input": rng.uniform(-1.0, 1.0, (n, m)).astype(np.float32)}


def reference(inputs, params):
    x = inputs["input"]
    alpha = np.float32(params["alpha"])
    return {"output": np.where(x > 0, x, x * alpha).astype(np.float32)}

import numpy as np


def generate(params, rng):
    rows, cols = params["rows"], params["cols"]
    return {"input": rng.uniform(-1.0, 1.0, (rows, cols)).astype(np.float32)}


def reference(inputs, params):
    return {"output": np.ascontiguousarray(inputs["input"].T)}

import numpy as np


def generate(params, rng):
    n = params["n"]
    return {
        "a": rng.uniform(-1.0, 1.0, n).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, n).astype(np.float32),
    }


def reference(inputs, params):
    return {"c": inputs["a"] + inputs["b"]}

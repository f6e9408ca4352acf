import numpy as np


def generate(params, rng):
    n = params["n"]
    # Uniform in [-1, 1), drawn as float32: uniform() draws float64 and the cast copies it, 5 to 10
    # times as long at n = 2^22 to 2^24 (the judge generates fresh inputs for every timed round).
    return {
        "a": 2 * rng.random(n, dtype=np.float32) - 1,
        "b": 2 * rng.random(n, dtype=np.float32) - 1,
    }


def reference(inputs, params):
    return {"c": inputs["a"] + inputs["b"]}

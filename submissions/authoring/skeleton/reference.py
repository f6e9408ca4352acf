"""Inputs and the expected output of {{slug}}: generate() draws one case's input buffers, reference()
computes its outputs. Both get the case's params (sizes and scalars); the judge casts each buffer to
its declared type and rounds a float64 result once to the output's type."""

import numpy as np


def generate(params, rng):
    n = params["n"]
    # Uniform in [-1, 1), drawn as float32 (drawing float64 and casting takes several times as long,
    # and the judge draws fresh inputs for every timed round).
    return {
        "x": 2 * rng.random(n, dtype=np.float32) - 1,
        "y": 2 * rng.random(n, dtype=np.float32) - 1,
    }


def reference(inputs, params):
    alpha = np.float32(params["alpha"])
    return {"z": alpha * inputs["x"] + inputs["y"]}

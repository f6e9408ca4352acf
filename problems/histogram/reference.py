import numpy as np


def generate(params, rng):
    return {"data": rng.integers(0, params["bins"], params["n"], dtype=np.int32)}


def reference(inputs, params):
    return {"hist": np.bincount(inputs["data"], minlength=params["bins"]).astype(np.int32)}

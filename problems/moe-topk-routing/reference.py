import numpy as np

STEP = 2.0**-6  # logits are multiples of STEP: two different logits differ by at least 1/64


def generate(params, rng):
    T, E = params["T"], params["E"]
    # A row: an offset in [-100, 100] (so that exp without the maximum subtracted overflows or
    # underflows) plus values in [-8, 8], all multiples of 2^-6 (exact in float32, differences too).
    # About E^2 / 2050 equal pairs per row: the tie rule is exercised.
    offset = rng.integers(-100 * 64, 100 * 64 + 1, size=(T, 1))
    spread = rng.integers(-8 * 64, 8 * 64 + 1, size=(T, E))
    return {"logits": ((offset + spread) * STEP).astype(np.float32)}


def reference(inputs, params):
    k = params["topk"]
    x = inputs["logits"].astype(np.float64)
    # Descending logit, ties to the lower expert index: a stable sort of -x.
    ids = np.argsort(-x, axis=1, kind="stable")[:, :k]
    e = np.exp(x - x.max(axis=1, keepdims=True))
    chosen = np.take_along_axis(e, ids, axis=1)
    total = chosen.sum(axis=1, keepdims=True) if params["renormalize"] else e.sum(axis=1, keepdims=True)
    return {"weights": chosen / total, "ids": ids.astype(np.int32)}

import numpy as np

ROWS_PER_CHUNK = 64  # float64 temporaries of a band of rows (cache-sized), not of the whole grid


def generate(params, rng):
    # A temperature field in [0, 1): the check's bound depends on |u| <= 1.
    return {"u": rng.random((params["H"], params["W"]), dtype=np.float32)}


def reference(inputs, params):
    u = inputs["u"]
    H, W = u.shape
    # The kernel receives c and d as float: use exactly those values.
    c, d = float(np.float32(params["c"])), float(np.float32(params["d"]))
    out = u.copy()  # the boundary keeps its values
    if H < 3 or W < 3:
        return {"out": out}
    for start in range(1, H - 1, ROWS_PER_CHUNK):
        stop = min(start + ROWS_PER_CHUNK, H - 1)
        band = u[start - 1:stop + 1].astype(np.float64)
        acc = band[:-2, 1:-1] + band[2:, 1:-1]
        acc += band[1:-1, :-2]
        acc += band[1:-1, 2:]
        acc *= d
        acc += c * band[1:-1, 1:-1]
        out[start:stop, 1:-1] = acc
    return {"out": out}

import ml_dtypes
import numpy as np

EPS = 1e-5            # Llama-3's rms_norm_eps (the forward's; rstd is given)
ROWS_PER_CHUNK = 256  # float64 temporaries of a chunk of rows, not of the whole matrix


def generate(params, rng):
    rows, cols = params["rows"], params["cols"]
    # Magnitudes of x in [1, 3] with random signs: a row's root mean square is at least 1, so
    # |x rstd| <= 3 and rstd <= 1 (the check's bound depends on both).
    x = (np.where(rng.random((rows, cols)) < 0.5, -1.0, 1.0) * (1.0 + 2.0 * rng.random((rows, cols)))).astype(
        ml_dtypes.bfloat16)
    x64 = x.astype(np.float64)
    rstd = (1.0 / np.sqrt(np.mean(x64 * x64, axis=1) + EPS)).astype(np.float32)  # what the forward saved
    # The incoming gradient: magnitudes in [0, 1], its sign that of x times one sign per column, so each
    # column's dweight terms dy x rstd share a sign (a float32 sum of them, in any order, has no
    # cancellation), while dx's row sums of w dy x mix signs across columns.
    column_sign = np.where(rng.random(cols) < 0.5, -1.0, 1.0)
    dy = (np.sign(x64) * column_sign * rng.random((rows, cols))).astype(ml_dtypes.bfloat16)
    return {"dy": dy, "x": x, "weight": (0.5 + rng.random(cols, dtype=np.float32)).astype(ml_dtypes.bfloat16),
            "rstd": rstd}


def reference(inputs, params):
    rows, cols = inputs["x"].shape
    w = inputs["weight"].astype(np.float64)
    dx = np.empty((rows, cols), dtype=np.float64)
    dweight = np.zeros(cols, dtype=np.float64)
    for start in range(0, rows, ROWS_PER_CHUNK):
        x = inputs["x"][start:start + ROWS_PER_CHUNK].astype(np.float64)
        dy = inputs["dy"][start:start + ROWS_PER_CHUNK].astype(np.float64)
        rstd = inputs["rstd"][start:start + ROWS_PER_CHUNK].astype(np.float64)[:, None]
        xhat = x * rstd
        dx[start:start + ROWS_PER_CHUNK] = rstd * (w * dy - xhat * np.mean(w * dy * xhat, axis=1, keepdims=True))
        dweight += (dy * xhat).sum(axis=0)
    return {"dx": dx, "dweight": dweight}

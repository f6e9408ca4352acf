import ml_dtypes
import numpy as np

EPS = 1e-5            # torch.nn.LayerNorm's default (the forward's; mean and rstd are given)
ROWS_PER_CHUNK = 256  # float64 temporaries of a chunk of rows, not of the whole matrix


def _shape(cols):
    """cols values with mean 0 and standard deviation 1, exactly (as layernorm-bf16's generator):
    standardized quantiles of a logistic distribution. Every row is a shuffle of these, so
    |x - mean| rstd <= 5.5 whatever the draw (the check's bound depends on it)."""
    if cols == 1:
        return np.zeros(1)
    p = (np.arange(cols) + 0.5) / cols
    z = np.log(p / (1.0 - p))
    z -= z.mean()
    return z / np.sqrt(np.mean(z * z))


def generate(params, rng):
    rows, cols = params["rows"], params["cols"]
    z = rng.permuted(np.broadcast_to(_shape(cols), (rows, cols)), axis=1)
    # Per row a mean in [-1, 1] and a spread in [1, 2]: rstd <= 1.0045 and |x_hat| <= 5.5.
    x = (rng.uniform(-1.0, 1.0, (rows, 1)) + rng.uniform(1.0, 2.0, (rows, 1)) * z).astype(ml_dtypes.bfloat16)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1).astype(np.float32)  # what the forward saved
    centred = x64 - mean.astype(np.float64)[:, None]
    rstd = (1.0 / np.sqrt(np.mean(centred * centred, axis=1) + EPS)).astype(np.float32)
    # The incoming gradient: multiples of 2^-8 in [-1, 1] (so every partial sum of a dbias column is
    # exact in float32, in any order), its sign that of x - mean times one sign per column, so each
    # column's dweight terms dy x_hat share a sign (no cancellation in any order).
    column_sign = np.where(rng.random(cols) < 0.5, -1.0, 1.0)
    steps = rng.integers(0, 257, (rows, cols))
    dy = (np.sign(centred) * column_sign * steps / 256.0).astype(ml_dtypes.bfloat16)
    return {"dy": dy, "x": x, "weight": rng.uniform(0.5, 1.5, cols).astype(ml_dtypes.bfloat16),
            "mean": mean, "rstd": rstd}


def reference(inputs, params):
    rows, cols = inputs["x"].shape
    w = inputs["weight"].astype(np.float64)
    dx = np.empty((rows, cols), dtype=np.float64)
    dweight = np.zeros(cols, dtype=np.float64)
    dbias = np.zeros(cols, dtype=np.float64)
    for start in range(0, rows, ROWS_PER_CHUNK):
        end = start + ROWS_PER_CHUNK
        mean = inputs["mean"][start:end].astype(np.float64)[:, None]
        rstd = inputs["rstd"][start:end].astype(np.float64)[:, None]
        xhat = (inputs["x"][start:end].astype(np.float64) - mean) * rstd
        dy = inputs["dy"][start:end].astype(np.float64)
        wdy = w * dy
        c1 = np.mean(wdy * xhat, axis=1, keepdims=True)
        c2 = np.mean(wdy, axis=1, keepdims=True)
        dx[start:end] = rstd * (wdy - xhat * c1 - c2)
        dweight += (dy * xhat).sum(axis=0)
        dbias += dy.sum(axis=0)
    return {"dx": dx, "dweight": dweight, "dbias": dbias}

import ml_dtypes
import numpy as np

EPS = 1e-5  # torch.nn.LayerNorm's default


def _shape(cols):
    """cols values with mean 0 and standard deviation 1, exactly: the quantiles of a logistic
    distribution (bell-shaped, closed form), standardized. Every row is a shuffle of these, so its
    statistics are known whatever the draw (the check's bound depends on it: |z| <= 5.4 at 8192)."""
    if cols == 1:
        return np.zeros(1)
    p = (np.arange(cols) + 0.5) / cols
    z = np.log(p / (1.0 - p))
    z -= z.mean()
    return z / np.sqrt(np.mean(z * z))


def generate(params, rng):
    rows, cols = params["rows"], params["cols"]
    z = rng.permuted(np.broadcast_to(_shape(cols), (rows, cols)), axis=1)
    # Per row a mean in [-1, 1] and a spread in [0.5, 2]: the mean is up to twice the spread, so
    # a variance taken without subtracting the mean is wrong by up to 5x.
    mean = rng.uniform(-1.0, 1.0, (rows, 1))
    spread = rng.uniform(0.5, 2.0, (rows, 1))
    return {
        "x": (mean + spread * z).astype(ml_dtypes.bfloat16),
        "gamma": rng.uniform(0.5, 1.5, cols).astype(ml_dtypes.bfloat16),
        "beta": rng.uniform(-0.1, 0.1, cols).astype(ml_dtypes.bfloat16),
    }


def reference(inputs, params):
    # Two passes in double over the exact inputs, rounded once to bfloat16 by the judge.
    x = inputs["x"].astype(np.float64)
    d = x - x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(np.mean(d * d, axis=1, keepdims=True) + EPS)
    return {"out": d * rstd * inputs["gamma"].astype(np.float64) + inputs["beta"].astype(np.float64)}

import ml_dtypes
import numpy as np

EPS = 1e-5  # Llama-3's rms_norm_eps


def generate(params, rng):
    rows, cols = params["rows"], params["cols"]
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    # Every third row is tiny (mean square about 1e-6, below eps): there eps decides the scale, so a
    # kernel that adds eps outside the square root, or forgets it, is caught.
    x[2::3] *= 1e-3
    return {
        "x": x.astype(ml_dtypes.bfloat16),
        "weight": (0.5 + rng.random(cols, dtype=np.float32)).astype(ml_dtypes.bfloat16),
    }


def reference(inputs, params):
    # Exact squares summed in double, rounded once to bfloat16 by the judge.
    x = inputs["x"].astype(np.float64)
    rstd = 1.0 / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + EPS)
    return {"out": x * rstd * inputs["weight"].astype(np.float64)}

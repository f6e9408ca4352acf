import ml_dtypes
import numpy as np

EPS = 1e-5            # Llama-3's rms_norm_eps
FP8_MAX = 240.0       # the largest float8 E4M3 FNUZ value
ROWS_PER_CHUNK = 256  # float64 temporaries of a chunk of rows, not of the whole matrix


def activations(rng, rows, cols):
    """Normal values with magnitudes in [2^-6, 8]: the sum of two of them (a ratio at most 2^9) is exact in float32,
    so every kernel's bfloat16 residual is the reference's. Every third row is a thousand times smaller (mean
    square about 1e-6, below eps): there eps decides the scale."""
    z = rng.standard_normal((rows, cols), dtype=np.float32)
    z = np.copysign(np.clip(np.abs(z), 2.0**-6, 8.0), z)
    z[2::3] *= np.float32(2.0**-10)
    return z.astype(ml_dtypes.bfloat16)


def generate(params, rng):
    rows, cols = params["rows"], params["cols"]
    return {
        "x": activations(rng, rows, cols),
        "residual": activations(rng, rows, cols),
        "weight": (0.5 + rng.random(cols, dtype=np.float32)).astype(ml_dtypes.bfloat16),
    }


def reference(inputs, params):
    rows, cols = inputs["x"].shape
    h = (inputs["x"].astype(np.float64) + inputs["residual"].astype(np.float64)).astype(ml_dtypes.bfloat16)
    w = inputs["weight"].astype(np.float64)
    q = np.empty((rows, cols), dtype=ml_dtypes.float8_e4m3fnuz)
    scale = np.empty(rows, dtype=np.float64)
    for start in range(0, rows, ROWS_PER_CHUNK):
        v = h[start:start + ROWS_PER_CHUNK].astype(np.float64)
        y = v * (1.0 / np.sqrt(np.mean(v * v, axis=1, keepdims=True) + EPS)) * w
        amax = np.abs(y).max(axis=1, keepdims=True)  # never 0: no value is 0
        scale[start:start + ROWS_PER_CHUNK] = amax[:, 0] / FP8_MAX
        # y / scale = 240 y / amax in double, rounded once to fp8 (to nearest even).
        q[start:start + ROWS_PER_CHUNK] = (FP8_MAX * y / amax).astype(ml_dtypes.float8_e4m3fnuz)
    return {"residual_out": h, "q": q, "scale": scale}

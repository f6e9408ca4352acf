import ml_dtypes
import numpy as np

ROWS_PER_CHUNK = 256  # float64 temporaries of a few chunks' rows, not of the whole matrix


def generate(params, rng):
    tokens, ffn = params["tokens"], params["ffn"]
    gate = np.clip(3.0 * rng.standard_normal((tokens, ffn), dtype=np.float32), -15.0, 15.0)
    up = rng.standard_normal((tokens, ffn), dtype=np.float32)
    # One matmul output per token: the gate projection x W1 then the up projection x W3.
    return {"gate_up": np.concatenate([gate, up], axis=1).astype(ml_dtypes.bfloat16)}


def reference(inputs, params):
    ffn = params["ffn"]
    gate_up = inputs["gate_up"]
    out = np.empty((gate_up.shape[0], ffn), dtype=ml_dtypes.bfloat16)
    for start in range(0, gate_up.shape[0], ROWS_PER_CHUNK):
        chunk = gate_up[start:start + ROWS_PER_CHUNK].astype(np.float64)
        g, u = chunk[:, :ffn], chunk[:, ffn:]
        # SiLU(g) * u in double, rounded once to bfloat16.
        out[start:start + ROWS_PER_CHUNK] = (g / (1.0 + np.exp(-g)) * u).astype(ml_dtypes.bfloat16)
    return {"out": out}

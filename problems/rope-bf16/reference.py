import ml_dtypes
import numpy as np

THETA = 500000.0  # Llama-3's rope_theta
TOKENS_PER_CHUNK = 512  # float64 temporaries of a chunk of tokens, not of the whole tensor


def generate(params, rng):
    tokens, heads, dim, max_pos = params["tokens"], params["heads"], params["head_dim"], params["max_pos"]
    # The cos/sin cache a model builds once: angle = position * theta^(-2i / head_dim), in double,
    # stored as float32.
    inv_freq = THETA ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)
    angles = np.outer(np.arange(max_pos, dtype=np.float64), inv_freq)
    # Queries or keys: normal with standard deviation 2, clipped to [-16, 16] (the check's bound
    # depends on it), rounded to bfloat16. Positions anywhere in the cache (packed sequences).
    x = np.clip(2.0 * rng.standard_normal((tokens, heads, dim), dtype=np.float32), -16.0, 16.0)
    return {
        "x": x.astype(ml_dtypes.bfloat16),
        "positions": rng.integers(0, max_pos, tokens, dtype=np.int32),
        "cos": np.cos(angles).astype(np.float32),
        "sin": np.sin(angles).astype(np.float32),
    }


def reference(inputs, params):
    x, positions = inputs["x"], inputs["positions"]
    half = params["head_dim"] // 2
    out = np.empty(x.shape, dtype=ml_dtypes.bfloat16)
    for start in range(0, x.shape[0], TOKENS_PER_CHUNK):
        stop = start + TOKENS_PER_CHUNK
        v = x[start:stop].astype(np.float64)
        c = inputs["cos"][positions[start:stop]].astype(np.float64)[:, None, :]
        s = inputs["sin"][positions[start:stop]].astype(np.float64)[:, None, :]
        # GPT-NeoX / Hugging Face Llama: element i pairs with element i + head_dim / 2.
        x1, x2 = v[..., :half], v[..., half:]
        out[start:stop] = np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1).astype(ml_dtypes.bfloat16)
    return {"out": out}

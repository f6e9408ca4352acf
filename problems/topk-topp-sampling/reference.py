import numpy as np

UNIT = 2.0**-19  # every probability is a whole number of units (statement: why every sum is exact)
MAX_UNITS = 1 << 17  # no probability above 1/4
INDEX_BITS = 18  # vocabularies below 2^18 = 262144 tokens
ELEMENTS_PER_CHUNK = 1 << 22  # int64 temporaries of a few rows, not of the whole batch


def generate(params, rng):
    B, V = params["B"], params["V"]
    # The tail: every token holds 0 to 3 units (most 0 or 1), so the tail is one long run of ties
    # that a top-k boundary often falls into.
    draw = rng.random((B, V), dtype=np.float32)
    units = (draw > 0.45).astype(np.int32)
    units += draw > 0.85
    units += draw > 0.95
    for b in range(B):
        # The head: up to 2000 tokens at random places with log-normal weights that share the rest of
        # the row's mass; one row in four rounds them to multiples of 4096 units (ties in the head).
        h = int(rng.integers(1, min(V, 2000) + 1))
        where = rng.integers(0, V, size=h)
        w = rng.lognormal(0.0, float(rng.uniform(0.5, 3.0)), size=h)
        room = max(0, (1 << 19) - int(units[b].sum()))
        head = np.minimum(np.floor(w / w.sum() * room), MAX_UNITS).astype(np.int32)
        if b % 4 == 3:
            head = head // 1024 * 1024
        units[b, where] = np.maximum(head, units[b, where])
    probs = units.astype(np.float32) * np.float32(UNIT)  # exact: whole numbers below 2^17, times 2^-19
    top_k = rng.integers(1, min(V, 1024) + 1, size=B).astype(np.int32)
    top_k[rng.random(B) < 0.15] = V  # top-k off
    top_k[rng.random(B) < 0.1] = 1  # greedy
    top_k[rng.random(B) < 0.1] = rng.integers(1, V + 1)
    top_p = rng.uniform(0.0, 1.0, size=B).astype(np.float32)
    top_p[rng.random(B) < 0.2] = 1.0  # top-p off
    top_p[rng.random(B) < 0.2] = np.float32(0.9)
    top_p = np.maximum(top_p, np.float32(2.0**-10))
    return {"probs": probs, "top_k": top_k, "top_p": top_p, "uniforms": rng.random(B, dtype=np.float32)}


def reference(inputs, params):
    probs, top_k, top_p, uniforms = inputs["probs"], inputs["top_k"], inputs["top_p"], inputs["uniforms"]
    B, V = probs.shape
    out = np.empty(B, dtype=np.int64)
    step = max(1, ELEMENTS_PER_CHUNK // V)
    for start in range(0, B, step):
        rows = slice(start, start + step)
        units = (probs[rows].astype(np.float64) / UNIT).astype(np.int64)  # exact
        # One sort key per token: larger probability first, then the lower index.
        keys = ((MAX_UNITS * 64 - units) << INDEX_BITS) | np.arange(V, dtype=np.int64)
        keys.sort(axis=1)
        order = keys & ((1 << INDEX_BITS) - 1)
        cum = np.cumsum(MAX_UNITS * 64 - (keys >> INDEX_BITS), axis=1)  # C_1 .. C_V in units, exact
        n_rows = cum.shape[0]
        r = np.arange(n_rows)
        k = top_k[rows].astype(np.int64)
        kept = (cum[r, k - 1] * UNIT).astype(np.float32)  # S_k, exact
        threshold = top_p[rows] * kept  # float32 product: one rounding to nearest even
        n = np.minimum((cum < threshold.astype(np.float64)[:, None] / UNIT).sum(axis=1) + 1, k)
        nucleus = (cum[r, n - 1] * UNIT).astype(np.float32)  # C_n, exact
        draw = uniforms[rows] * nucleus  # float32 product
        j = np.minimum((cum <= draw.astype(np.float64)[:, None] / UNIT).sum(axis=1) + 1, n)
        out[rows] = order[r, j - 1]
    return {"token": out}

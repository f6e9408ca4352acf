import ml_dtypes
import numpy as np

ELEMENTS_PER_CHUNK = 1 << 23  # float32 temporaries of a few rows, not of the whole batch


def argmax_rows(logits):
    """The first (lowest) index of each row's maximum, a few rows at a time."""
    rows = logits.reshape(-1, logits.shape[-1])
    out = np.empty(rows.shape[0], dtype=np.int64)
    step = max(1, ELEMENTS_PER_CHUNK // rows.shape[1])
    for start in range(0, rows.shape[0], step):
        out[start:start + step] = rows[start:start + step].astype(np.float32).argmax(axis=1)  # the first maximum
    return out.reshape(logits.shape[:-1])


def generate(params, rng):
    B, K, V = params["B"], params["K"], params["V"]
    # Logits: bfloat16, drawn from a table of 65536 normal values of standard deviation 2 (a gather
    # is much faster than rounding that many floats; ties are common at that precision anyway).
    table = (2.0 * rng.standard_normal(1 << 16, dtype=np.float32)).astype(ml_dtypes.bfloat16)
    logits = table[rng.integers(0, 1 << 16, size=(B, K + 1, V), dtype=np.uint16)]
    # In one row of four the maximum appears twice, once at another random place: the first of the
    # two is the argmax.
    rows = logits.reshape(-1, V)
    best = argmax_rows(rows)
    twin = np.flatnonzero(rng.random(rows.shape[0]) < 0.25)
    where = rng.integers(0, V, twin.size)
    rows[twin, where] = rows[twin, best[twin]]
    target = best.copy()
    target[twin] = np.minimum(best[twin], where)
    target = target.reshape(B, K + 1)
    # Each sequence's draft agrees with the target for its first L tokens, L uniform in 0 .. K; the
    # (L+1)-th draft token is one the target did not choose (the row's original maximum where a
    # twin took its place, else a random other token); later ones are random.
    draft = rng.integers(0, V, size=(B, K))
    agree = rng.integers(0, K + 1, size=B)
    for b in range(B):
        L = int(agree[b])
        draft[b, :L] = target[b, :L]
        if L < K and V > 1:
            other = int(best[b * (K + 1) + L])
            if other == target[b, L]:
                other = (other + 1 + int(rng.integers(0, V - 1))) % V
            draft[b, L] = other
    return {"target_logits": logits, "draft_tokens": draft.astype(np.int32)}


def reference(inputs, params):
    draft = inputs["draft_tokens"].astype(np.int64)
    B, K = draft.shape
    target = argmax_rows(inputs["target_logits"])  # B x (K + 1)
    mismatch = target[:, :K] != draft
    accepted = np.where(mismatch.any(axis=1), mismatch.argmax(axis=1), K)
    position = np.arange(K + 1)[None, :]
    tokens = np.where(position <= accepted[:, None], target, -1)
    return {"accepted": accepted, "output_tokens": tokens}

import ml_dtypes
import numpy as np


def contexts(n, mean, rng):
    """n context lengths, each uniform in 0 .. 2 mean, in pairs that add up to 2 mean (the middle one
    of an odd count is the mean): n * mean tokens on every draw, so the step's work (problem.yaml's
    flops) does not depend on the draw. The first pair is one empty context and one of 2 mean."""
    c = np.empty(n, dtype=np.int64)
    half = rng.integers(0, 2 * mean + 1, size=n // 2)
    half[:1] = 2 * mean
    c[: n // 2] = half
    c[n - n // 2 :] = (2 * mean - half)[::-1]
    if n % 2:
        c[n // 2] = mean
    return c


def lengths(params, rng):
    """(q_len, k_len) of each sequence of the step, in a random order: Nd decodes (q_len 1), Nw whole
    prompts (q_len = k_len = Lw), Nc chunks of Lc queries after their context."""
    Nd, Cd, Nw, Lw, Nc, Lc, Cc = (params[k] for k in ("Nd", "Cd", "Nw", "Lw", "Nc", "Lc", "Cc"))
    q = np.concatenate([np.ones(Nd, np.int64), np.full(Nw, Lw, np.int64), np.full(Nc, Lc, np.int64)])
    k = np.concatenate([1 + contexts(Nd, Cd, rng), np.full(Nw, Lw, np.int64), Lc + contexts(Nc, Cc, rng)])
    order = rng.permutation(len(q))
    q, k = q[order], k[order]
    assert (len(q), q.sum(), k.sum()) == (params["B"], params["Tq"], params["Tk"]), "B, Tq, Tk disagree with the mix"
    assert q.min() >= 1 and (k >= q).all()
    return q, k


def generate(params, rng):
    Tq, Tk, H, Hkv, D = params["Tq"], params["Tk"], params["H"], params["Hkv"], params["D"]
    q_len, k_len = lengths(params, rng)

    def grid(shape, step, limit):  # uniform multiples of `step` in [-limit, limit] (exact in bfloat16)
        n = int(limit / step)
        values = (np.arange(-n, n + 1) * step).astype(ml_dtypes.bfloat16)  # exact: step is a power of two
        return values[rng.integers(0, 2 * n + 1, size=shape, dtype=np.int16)]

    # As flash-attention-fwd's: Q multiples of 2^-5 in [-8, 8] (9 bits with the sign, so no int8 or
    # fp8 QK^T holds Q), K multiples of 2^-7 in [-1, 1]: a dot product over D <= 128 is a sum of at
    # most 2^7 products, each an integer multiple of 2^-12 of magnitude <= 2^15 units, exact in
    # float32 in any order. The scores s = q.k / sqrt(D) stay within 8 sqrt(D) (about 90), spread
    # about 2.7. V: uniform in [-1, 1].
    return {
        "Q": grid((Tq, H, D), 2.0**-5, 8.0),
        "K": grid((Tk, Hkv, D), 2.0**-7, 1.0),
        "V": (2 * rng.random((Tk, Hkv, D), dtype=np.float32) - 1).astype(ml_dtypes.bfloat16),
        "cu_seqlens_q": np.concatenate([[0], np.cumsum(q_len)]).astype(np.int32),
        "cu_seqlens_k": np.concatenate([[0], np.cumsum(k_len)]).astype(np.int32),
    }


def reference(inputs, params):
    B, Tq, H, Hkv, D = params["B"], params["Tq"], params["H"], params["Hkv"], params["D"]
    group = H // Hkv
    cu_q, cu_k = inputs["cu_seqlens_q"].astype(np.int64), inputs["cu_seqlens_k"].astype(np.int64)
    out = np.empty((Tq, H, D), dtype=np.float64)
    scale = 1.0 / np.sqrt(D)
    for b in range(B):
        q0, q_len, k0, k_len = cu_q[b], cu_q[b + 1] - cu_q[b], cu_k[b], cu_k[b + 1] - cu_k[b]
        shift = k_len - q_len  # bottom-right alignment: query i sees keys j <= i + shift
        for hk in range(Hkv):
            heads = slice(hk * group, (hk + 1) * group)
            k = inputs["K"][k0 : k0 + k_len, hk, :].astype(np.float32)
            v = inputs["V"][k0 : k0 + k_len, hk, :].astype(np.float64)
            # The group's query heads share the keys: rows (head, query) of one product.
            q = inputs["Q"][q0 : q0 + q_len, heads, :].astype(np.float32).transpose(1, 0, 2).reshape(-1, D)
            o = np.empty((q.shape[0], D), dtype=np.float64)
            rows = max(1, 2**21 // k_len)  # at most 2**21 float64 scores at once
            for r0 in range(0, q.shape[0], rows):
                r1 = min(q.shape[0], r0 + rows)
                last = np.arange(r0, r1) % q_len + shift  # each row's last visible key
                end = last.max() + 1  # no row of the step sees a key past it
                s = (q[r0:r1] @ k[:end].T).astype(np.float64) * scale  # q.k exact in float32 (see generate)
                s[np.arange(end)[None, :] > last[:, None]] = -np.inf
                p = np.exp(s - s.max(axis=1, keepdims=True))
                o[r0:r1] = (p @ v[:end]) / p.sum(axis=1, keepdims=True)
            out[q0 : q0 + q_len, heads, :] = o.reshape(group, q_len, D).transpose(1, 0, 2)
    return {"O": out}

import math

import ml_dtypes
import numpy as np

BF16 = ml_dtypes.bfloat16


def gate_up_grid(H):
    """(J, b) of w1's grid: its entries are j 2^-b with |j| <= J, x's are i 2^-8 with 0 <= i <= 256, and
    H J <= 2^16, so every partial sum of a gate or up dot product, in any order, is an integer multiple
    of 2^-(8+b) of magnitude at most H 256 J <= 2^24 such units: float32 holds it exactly. 2^-b puts the
    largest rows' mean |g| near 8 (H J 2^-b / 4), the smallest near 0.1: SiLU's curve, both sides."""
    J = min(16, (1 << 16) // H)
    return J, round(math.log2(H * J / 32))


def down_bits(I):  # noqa: E741
    """w2's entries are j 2^-c with 0 <= j <= 255 (exact in bfloat16): c keeps the outputs near 1..100."""
    return 8 + math.ceil(math.log2(I))


def scaled_ints(rng, limits, width):
    """Integers in [0, limit] per row (limits: one per row, at most 256), uniform: (r (limit + 1)) >> 16
    for r uniform on 16 bits, in integer arithmetic (no float temporaries), as int16."""
    r = rng.integers(0, 1 << 16, size=(limits.shape[0], width), dtype=np.uint16).astype(np.uint32)
    r *= (limits.astype(np.uint32) + 1)[:, None]
    return (r >> 16).astype(np.int16)


def generate(params, rng):
    T, H, I, E, k = params["T"], params["H"], params["I"], params["E"], params["topk"]  # noqa: E741
    J, b = gate_up_grid(H)
    c = down_bits(I)
    # Every term of every sum has one sign (the check's derivation rests on it): x >= 0; gate row i and
    # up row i of an expert share a sign, so g and u do and SiLU(g) u >= 0 (a negative row puts g on
    # SiLU's negative branch); w2 >= 0 and the routing weights > 0. Scales differ per token (x's
    # largest integer, 32..256) and per row (w1's 1..J, w2's 1..255), so outputs differ by row,
    # column and token.
    x_levels = (np.arange(0, 257) / 256.0).astype(BF16)
    x = x_levels[scaled_ints(rng, rng.integers(32, 257, size=T), H)]
    w1_levels = (np.arange(-J, J + 1) * 2.0**-b).astype(BF16)
    w2_levels = (np.arange(0, 256) * 2.0**-c).astype(BF16)
    w1 = np.empty((E, 2 * I, H), dtype=BF16)
    w2 = np.empty((E, H, I), dtype=BF16)
    for e in range(E):  # expert by expert: no temporaries of the whole weights
        sign = rng.choice(np.array([-1, 1], dtype=np.int16), size=I)
        j = scaled_ints(rng, rng.integers(1, J + 1, size=2 * I), H) * np.concatenate([sign, sign])[:, None]
        w1[e] = w1_levels[j + J]
        # j = floor((K + 1) r^3): many small entries, a few large ones, K (1..255) per output row.
        r = rng.random((H, I), dtype=np.float32)
        K = rng.integers(1, 256, size=H)
        w2[e] = w2_levels[np.minimum((r * r * r * (K[:, None] + 1)).astype(np.int16), K[:, None])]
    # Routing as a top-k router leaves it: k distinct experts per token, popular experts more often
    # (popularity ~ 1 / rank^0.8; weighted sampling without replacement by keys u^(1/p)), and weights
    # that are positive and sum to 1 (a softmax over the chosen k).
    popularity = 1.0 / np.arange(1, E + 1) ** 0.8
    keys = np.log(rng.random((T, E))) / popularity[rng.permutation(E)]
    ids = np.argsort(-keys, axis=1, kind="stable")[:, :k].astype(np.int32)
    r = rng.random((T, k)) + 0.05
    weights = (r / r.sum(axis=1, keepdims=True)).astype(np.float32)
    return {"x": x, "w1": w1, "w2": w2, "topk_ids": ids, "topk_weights": weights}


def reference(inputs, params):
    T, H, I = params["T"], params["H"], params["I"]  # noqa: E741
    x, ids, weights = inputs["x"].astype(np.float32), inputs["topk_ids"], inputs["topk_weights"]
    out = np.zeros((T, H), dtype=np.float64)
    act = np.empty((T, ids.shape[1], I), dtype=np.float32)
    for e in np.unique(ids):
        tokens, slot = np.nonzero(ids == e)  # a token takes an expert at most once
        # Exact in float32 whatever order BLAS sums in (gate_up_grid).
        gu = (x[tokens] @ inputs["w1"][e].astype(np.float32).T).astype(np.float64)
        g, u = gu[:, :I], gu[:, I:]
        # The activation in double, rounded once to bfloat16 (the down GEMM's operand).
        h = (g / (1.0 + np.exp(-g)) * u).astype(BF16).astype(np.float32)
        act[tokens, slot] = h
        # float32 over I terms of one sign: within I 2^-24 relative (the derivation counts it).
        y = h @ inputs["w2"][e].astype(np.float32).T
        out[tokens] += weights[tokens, slot].astype(np.float64)[:, None] * y
    return {"act": act, "out": out}

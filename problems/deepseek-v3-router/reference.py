import ml_dtypes
import numpy as np

E, GROUPS, TOP_GROUPS, TOP_K, SCALE = 256, 8, 4, 8, 2.5  # DeepSeek-V3's gate (config.json)
# The logits the generator gives: k / 4096 for k in the Mian-Chowla sequence less one (every sum of two is
# distinct); the correction biases it draws: m / 16 for m on a Golomb ruler (likewise), the larger ones rarer.
# problem.yaml derives the check from both sets.
LOGITS = np.array([0, 1, 3, 7, 12, 20, 30, 44, 65, 80, 96, 122, 147, 181, 203, 251]) / 4096
BIASES = np.array([0, 1, 3, 7]) / 16
BIAS_ODDS = np.array([4, 2, 1, 1]) / 8


def grid(rng, shape, bits):
    """Uniform multiples of 2^-bits in [-1, 1] (exact in bfloat16 for bits <= 8): the 2^(bits+1) + 1 values once,
    then indexed (no float64 temporaries of the whole array)."""
    n = 1 << bits
    values = (np.arange(-n, n + 1) / n).astype(ml_dtypes.bfloat16)
    return values[rng.integers(0, 2 * n + 1, size=shape, dtype=np.int16)]


def generate(params, rng):
    """x W^T takes only the values of LOGITS, exactly, whatever the order of the sum: x = [l | u | u] and
    W = [I | w | -w] (columns shuffled alike; a last odd column is zero), so x_t . W_e = l[t, e] + u_t . w_e -
    u_t . w_e, every partial sum a multiple of 2^-12 of magnitude at most (H - 256) / 2 + 1 <= 2^12 (u: 8 bits,
    w: 2 bits, l: multiples of 2^-12; H <= 8446): float32 holds each."""
    T, H = params["T"], params["H"]
    pairs = (H - E) // 2
    where = np.argsort(rng.permutation(H))  # the shuffled position of each column of [l | u | u | 0]
    x = np.zeros((T, H), dtype=ml_dtypes.bfloat16)
    W = np.zeros((E, H), dtype=ml_dtypes.bfloat16)
    x[:, where[:E]] = LOGITS.astype(ml_dtypes.bfloat16)[rng.integers(0, LOGITS.size, size=(T, E))]
    W[np.arange(E), where[:E]] = 1
    u, w = grid(rng, (T, pairs), 8), grid(rng, (E, pairs), 2)
    x[:, where[E:E + pairs]], x[:, where[E + pairs:E + 2 * pairs]] = u, u
    W[:, where[E:E + pairs]], W[:, where[E + pairs:E + 2 * pairs]] = w, -w
    return {"x": x, "W": W, "bias": rng.choice(BIASES, size=E, p=BIAS_ODDS).astype(np.float32)}


def route(logits, bias):
    """DeepSeek-V3's noaux_tc routing in float64: (weights, ids), ids ascending; ties to the lower index."""
    T = logits.shape[0]
    scores = 1.0 / (1.0 + np.exp(-logits))
    choice = scores + bias[None, :].astype(np.float64)
    top2 = -np.sort(-choice.reshape(T, GROUPS, E // GROUPS), axis=2)[:, :, :2].sum(axis=2)
    groups = np.argsort(-top2, axis=1, kind="stable")[:, :TOP_GROUPS]  # stable: the lower index first
    allowed = np.zeros((T, GROUPS), dtype=bool)
    np.put_along_axis(allowed, groups, True, axis=1)
    masked = np.where(np.repeat(allowed, E // GROUPS, axis=1), choice, -np.inf)
    ids = np.sort(np.argsort(-masked, axis=1, kind="stable")[:, :TOP_K], axis=1)
    chosen = np.take_along_axis(scores, ids, axis=1)
    return chosen / chosen.sum(axis=1, keepdims=True) * SCALE, ids


def reference(inputs, params):
    # The logits are exact in float32, whatever order BLAS sums in (generate); the judge rounds the weights to
    # float32 once.
    logits = (inputs["x"].astype(np.float32) @ inputs["W"].astype(np.float32).T).astype(np.float64)
    weights, ids = route(logits, inputs["bias"])
    return {"weights": weights, "ids": ids.astype(np.int32)}

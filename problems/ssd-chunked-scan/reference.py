import ml_dtypes
import numpy as np

# The generator's grids (problem.yaml's derivation reads them): dt = k / 2^10 with 8 <= k <= 64
# (dt in [2^-7, 2^-4]), A = -j / 16 with 32 <= j <= 128 (A in [-8, -2]). Every a = dt A is then a
# multiple of 2^-14 of magnitude at most 1/2, so its float32 product is exact and so is every sum of
# up to 2^24 * 2^-14 / (1/2) = 2048 of them, in any order: a kernel's cumulative sums of the logs
# (within a chunk) and their differences carry no rounding at all.
DT_UNIT, DT_MIN_K, DT_MAX_K = 2.0**-10, 8, 64
A_UNIT, A_MIN_J, A_MAX_J = 2.0**-4, 32, 128


def generate(params, rng):
    batch, seqlen, nheads, headdim = params["batch"], params["seqlen"], params["nheads"], params["headdim"]
    ngroups, dstate = params["ngroups"], params["dstate"]

    def uniform_bf16(shape):  # uniform in [-1, 1), rounded to bfloat16
        return (2 * rng.random(shape, dtype=np.float32) - 1).astype(ml_dtypes.bfloat16)

    k = rng.integers(DT_MIN_K, DT_MAX_K + 1, size=(batch, seqlen, nheads), dtype=np.int32)
    j = rng.integers(A_MIN_J, A_MAX_J + 1, size=nheads, dtype=np.int32)
    return {
        "x": uniform_bf16((batch, seqlen, nheads, headdim)),
        "dt": (k * DT_UNIT).astype(np.float32),
        "A": (-j * A_UNIT).astype(np.float32),
        "B": uniform_bf16((batch, seqlen, ngroups, dstate)),
        "C": uniform_bf16((batch, seqlen, ngroups, dstate)),
        "D": (2 * rng.random(nheads, dtype=np.float32) - 1),
    }


def reference(inputs, params):
    # The chunked (state-space duality) form in float64, 64 positions a chunk: within a chunk the
    # quadratic form y_t = sum_{s <= t} (C_t . B_s) exp(cum_t - cum_s) dt_s x_s, across chunks the
    # state h = sum_s exp(cum_end - cum_s) dt_s x_s B_s^T carried and decayed by exp(cum_end).
    batch, seqlen, nheads, headdim = params["batch"], params["seqlen"], params["nheads"], params["headdim"]
    ngroups, dstate = params["ngroups"], params["dstate"]
    group = np.arange(nheads) // (nheads // ngroups)  # head h reads B and C of group h / (H / G)
    A = inputs["A"].astype(np.float64)
    D = inputs["D"].astype(np.float64)
    y = np.empty((batch, seqlen, nheads, headdim), dtype=np.float64)
    Q = 64
    for b in range(batch):
        state = np.zeros((nheads, headdim, dstate), dtype=np.float64)
        for c0 in range(0, seqlen, Q):
            c1 = min(seqlen, c0 + Q)
            x = inputs["x"][b, c0:c1].astype(np.float64).transpose(1, 0, 2)  # [H, q, P]
            dt = inputs["dt"][b, c0:c1].astype(np.float64).T  # [H, q]
            Bm = inputs["B"][b, c0:c1].astype(np.float64).transpose(1, 0, 2)[group]  # [H, q, N]
            Cm = inputs["C"][b, c0:c1].astype(np.float64).transpose(1, 0, 2)[group]  # [H, q, N]
            cum = np.cumsum(dt * A[:, None], axis=1)  # [H, q], exact (see the grids above)
            seg = cum[:, :, None] - cum[:, None, :]  # [H, t, s]
            causal = np.tril(np.ones((c1 - c0, c1 - c0), dtype=bool))
            decay = np.where(causal, np.exp(np.where(causal, seg, 0.0)), 0.0)
            xdt = x * dt[:, :, None]  # [H, q, P]
            scores = (Cm @ Bm.transpose(0, 2, 1)) * decay  # [H, t, s]
            out = scores @ xdt + np.exp(cum)[:, :, None] * (Cm @ state.transpose(0, 2, 1))  # [H, q, P]
            out += D[:, None, None] * x
            y[b, c0:c1] = out.transpose(1, 0, 2)
            to_end = np.exp(cum[:, -1:] - cum)  # [H, q]
            state = np.exp(cum[:, -1])[:, None, None] * state + (xdt * to_end[:, :, None]).transpose(0, 2, 1) @ Bm
    return {"y": y}

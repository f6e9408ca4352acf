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
    # The chunked (state-space duality) form in float64, 64 positions a chunk, one group of heads at a
    # time (its heads share B and C): within a chunk the quadratic form
    # y_t = sum_{s <= t} (C_t . B_s) exp(cum_t - cum_s) dt_s x_s, across chunks the state
    # S = sum_s exp(cum_end - cum_s) dt_s x_s B_s^T carried on and decayed by exp(cum_end).
    batch, seqlen, nheads, headdim = params["batch"], params["seqlen"], params["nheads"], params["headdim"]
    ngroups, dstate = params["ngroups"], params["dstate"]
    r, P = nheads // ngroups, headdim  # heads per group
    A = inputs["A"].astype(np.float64).reshape(ngroups, r)
    D = inputs["D"].astype(np.float64).reshape(ngroups, r)
    y = np.empty((batch, seqlen, ngroups, r, P), dtype=np.float64)
    Q = 64
    causal = np.tril(np.ones((Q, Q), dtype=bool))
    for b in range(batch):
        for g in range(ngroups):
            state = np.zeros((r * P, dstate), dtype=np.float64)  # row h P + p of the group's heads
            for c0 in range(0, seqlen, Q):
                c1 = min(seqlen, c0 + Q)
                q = c1 - c0
                x = inputs["x"][b, c0:c1, g * r:(g + 1) * r].astype(np.float64)  # [q, r, P]
                dt = inputs["dt"][b, c0:c1, g * r:(g + 1) * r].astype(np.float64)  # [q, r]
                Bg = inputs["B"][b, c0:c1, g].astype(np.float64)  # [q, N]
                Cg = inputs["C"][b, c0:c1, g].astype(np.float64)  # [q, N]
                cum = np.cumsum(dt * A[g], axis=0)  # [q, r], exact (see the grids above)
                mask = causal[:q, :q]
                seg = np.where(mask[None], cum.T[:, :, None] - cum.T[:, None, :], -np.inf)  # [r, t, s]
                xdt = x * dt[:, :, None]  # [q, r, P]
                m = (Cg @ Bg.T)[None] * np.exp(seg)  # [r, t, s]
                intra = np.matmul(m, np.ascontiguousarray(xdt.transpose(1, 0, 2)))  # [r, q, P]
                inter = (Cg @ state.T).reshape(q, r, P) * np.exp(cum)[:, :, None]
                y[b, c0:c1, g] = intra.transpose(1, 0, 2) + inter + D[g][None, :, None] * x
                to_end = np.exp(cum[-1] - cum)  # [q, r]
                state = np.exp(cum[-1]).repeat(P)[:, None] * state + (xdt * to_end[:, :, None]).reshape(q, r * P).T @ Bg
    return {"y": y.reshape(batch, seqlen, nheads, headdim)}

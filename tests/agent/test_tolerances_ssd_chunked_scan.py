"""ssd-chunked-scan's check rule (problem.yaml's derivation) holds on every case; the generator keeps
to the grids that make the cumulative sums of the logs exact; float32 kernels in the forms the
derivation covers (the sequential recurrence, the chunked form with chunks of 64 and 256) pass and
stay within the bound, and the two bugs of wrong.cpp and wrong.py are refused."""

from __future__ import annotations

import math

import numpy as np

from tests.agent.conftest import load_problem
from tests.agent.test_tolerances_gemm_attention_moe import F32, U, case_named, every_case, passes

E0, E1 = 8, 4  # an exp(z) errs by at most (E0 + E1 |z|) u
Q_MAX = 256  # the largest chunk the derivation covers


def ssd_bound(N: int, L: int, ref) -> float:
    """problem.yaml's |y32 - y|: N e^amax (alpha / Amin + beta / (dtmin Amin^2) + e1 / Amin) u plus the
    skip term's and the last additions' roundings; first order times 1 / (1 - m u) for the most
    roundings any term meets (k <= L positions back, tau <= L amax)."""
    dt_min, dt_max = ref.DT_MIN_K * ref.DT_UNIT, ref.DT_MAX_K * ref.DT_UNIT
    a_min, a_max = ref.A_MIN_J * ref.A_UNIT, ref.A_MAX_J * ref.A_UNIT
    amax = dt_max * a_max
    alpha, beta = N + Q_MAX + 24, E0 + 3
    ssm = N * math.exp(amax) * (alpha / a_min + beta / (dt_min * a_min**2) + E1 / a_min)
    y_max = N * math.exp(amax) / a_min + 1
    m = alpha + beta * L + E1 * L * amax
    return (ssm + 3 + y_max) * U / (1 - m * U)


def groups_of(inputs: dict[str, np.ndarray], nheads: int) -> tuple[np.ndarray, np.ndarray]:
    G = inputs["B"].shape[2]
    g = np.arange(nheads) // (nheads // G)
    return inputs["B"].astype(F32)[:, :, g], inputs["C"].astype(F32)[:, :, g]  # [b, L, H, N]


def sequential(inputs: dict[str, np.ndarray], after: bool = False) -> np.ndarray:
    """S = exp(dt A) S + dt x B^T, y = S C + D x, step by step in float32 (after: the decay also
    scales the new input, wrong.cpp's bug)."""
    x, dt, A, D = inputs["x"].astype(F32), inputs["dt"], inputs["A"], inputs["D"]
    batch, L, H, P = x.shape
    Bh, Ch = groups_of(inputs, H)
    y = np.empty(x.shape, dtype=F32)
    for b in range(batch):
        S = np.zeros((H, P, Bh.shape[-1]), dtype=F32)
        for t in range(L):
            decay = np.exp(dt[b, t] * A).astype(F32)[:, None, None]
            new = ((dt[b, t][:, None] * x[b, t])[:, :, None] * Bh[b, t][:, None, :]).astype(F32)
            S = (decay * (S + new) if after else decay * S + new).astype(F32)
            y[b, t] = np.einsum("hpn,hn->hp", S, Ch[b, t]).astype(F32) + D[:, None] * x[b, t]
    return y


def chunked(inputs: dict[str, np.ndarray], Q: int, carry: bool = True) -> np.ndarray:
    """The chunked form in float32: per chunk, cum = cumsum(dt A), scores C B^T times exp(cum_t - cum_s)
    dt_s below the diagonal, times x; plus exp(cum_t) C S; then S = exp(cum_end) S + the chunk's part
    (carry=False: the state starts afresh in every chunk, wrong.py's bug)."""
    x, dt, A, D = inputs["x"].astype(F32), inputs["dt"], inputs["A"], inputs["D"]
    batch, L, H, P = x.shape
    Bh, Ch = groups_of(inputs, H)
    y = np.empty(x.shape, dtype=F32)
    for b in range(batch):
        S = np.zeros((H, P, Bh.shape[-1]), dtype=F32)
        for c0 in range(0, L, Q):
            c1 = min(L, c0 + Q)
            if not carry:
                S[:] = 0
            xs, st = x[b, c0:c1].transpose(1, 0, 2), dt[b, c0:c1].T  # [H, q, P], [H, q]
            bs, cs = Bh[b, c0:c1].transpose(1, 0, 2), Ch[b, c0:c1].transpose(1, 0, 2)  # [H, q, N]
            cum = np.cumsum(st * A[:, None], axis=1, dtype=F32)
            causal = np.tril(np.ones((c1 - c0, c1 - c0), dtype=bool))
            decay = np.exp(np.where(causal, cum[:, :, None] - cum[:, None, :], F32(0))).astype(F32)
            m = np.where(causal, (cs @ bs.transpose(0, 2, 1)) * decay * st[:, None, :], F32(0)).astype(F32)
            out = m @ xs + np.exp(cum)[:, :, None] * (cs @ S.transpose(0, 2, 1)) + D[:, None, None] * xs
            y[b, c0:c1] = out.astype(F32).transpose(1, 0, 2)
            w = (st * np.exp(cum[:, -1:] - cum)).astype(F32)
            S = (np.exp(cum[:, -1])[:, None, None] * S + (xs * w[:, :, None]).transpose(0, 2, 1) @ bs).astype(F32)
    return y


def test_bound_holds_on_every_case_and_the_cumulative_sums_are_exact() -> None:
    problem = load_problem("ssd-chunked-scan")
    ref = problem.module
    assert problem.tolerance.ulps == 2
    for case in every_case(problem):
        p = case.params
        assert p["headdim"] in (32, 64, 128) and p["dstate"] in (32, 64, 128), case.name
        assert p["nheads"] % p["ngroups"] == 0, case.name
        assert ssd_bound(int(p["dstate"]), int(p["seqlen"]), ref) <= problem.tolerance.atol, case.name
    # a = dt A: a multiple of 2^-14 (10 + 4 bits) with |a| <= 1/2, so any sum of a chunk's (Q_MAX) is
    # an integer number of units that float32 holds.
    assert ref.DT_UNIT * ref.A_UNIT == 2.0**-14
    assert Q_MAX * ref.DT_MAX_K * ref.A_MAX_J <= 2**24


def test_the_generator_keeps_to_its_grids_and_ranges() -> None:
    problem = load_problem("ssd-chunked-scan")
    ref = problem.module
    _, inputs = case_named(problem, "b1-l300-h2-p64-n128-g1")
    k, j = inputs["dt"] / ref.DT_UNIT, -inputs["A"] / ref.A_UNIT
    assert np.array_equal(k, np.rint(k)) and ref.DT_MIN_K <= k.min() and k.max() <= ref.DT_MAX_K
    assert np.array_equal(j, np.rint(j)) and ref.A_MIN_J <= j.min() and j.max() <= ref.A_MAX_J
    for name in ("x", "B", "C", "D"):
        assert np.abs(inputs[name].astype(np.float64)).max() <= 1, name
    a = (inputs["dt"] * inputs["A"]).astype(F32)
    assert np.array_equal(np.cumsum(a, axis=1, dtype=F32), np.cumsum(a.astype(np.float64), axis=1))


def test_sequential_and_chunked_float32_kernels_pass_within_the_bound() -> None:
    problem = load_problem("ssd-chunked-scan")
    case, inputs = case_named(problem, "b1-l300-h2-p64-n128-g1")
    want = problem.module.reference(inputs, case.params)["y"]
    bound = ssd_bound(int(case.params["dstate"]), int(case.params["seqlen"]), problem.module)
    for got in (sequential(inputs), chunked(inputs, 64), chunked(inputs, 256)):
        assert np.abs(got.astype(np.float64) - want).max() <= bound
        assert passes(problem, case, inputs, {"y": got})


def test_the_decay_after_the_input_and_a_state_not_carried_are_refused() -> None:
    problem = load_problem("ssd-chunked-scan")
    case, inputs = case_named(problem, "b2-l130-h4-p32-n32-g2")
    assert passes(problem, case, inputs, {"y": chunked(inputs, 64)})
    assert not passes(problem, case, inputs, {"y": sequential(inputs, after=True)})
    assert not passes(problem, case, inputs, {"y": chunked(inputs, 64, carry=False)})

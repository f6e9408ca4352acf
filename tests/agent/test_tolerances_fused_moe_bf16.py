"""fused-moe-bf16's check rule, derived in its problem.yaml: the bound recomputed from every case the
problem judges (tests, benchmarks, ranked), the generator's one-sign structure checked on the cases
small enough to draw here, and float32 kernels written the ways people write them (one rounding of
the activation, or SiLU rounded first as vLLM's silu_and_mul does; other summation orders) judged by
the judge's comparison, with the bugs of wrong.cpp and wrong.py refused."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from agent.judging.verify import compare
from agent.problems.bundle import Case, Problem
from tests.agent.conftest import load_problem

SLUG = "fused-moe-bf16"
U = 2.0**-24  # float32's unit roundoff
UB = 2.0**-8  # bfloat16's
F32 = np.float32
BF16 = ml_dtypes.bfloat16


def every_case(problem: Problem) -> list[Case]:
    return [*problem.tests, *problem.benchmarks, *problem.ranked]


def gamma(n: int) -> float:
    return n * U / (1 - n * U)


def silu_eps(g_max: float) -> float:
    """A float32 SiLU's relative error at |g| <= g_max: a fast exp within 2 + 1.16 |g| ulps (2^-23
    relative each), then 1 + e, the division and the product (one rounding each)."""
    return (2 + 1.16 * g_max) * 2.0**-23 + 3 * U


def test_the_bound_covers_every_case() -> None:
    problem = load_problem(SLUG)
    module = problem.module
    tol = problem.tolerance
    assert tol.ulps == 5 and tol.atol == 0
    for case in every_case(problem):
        H, I, k = case.params["H"], case.params["I"], case.params["topk"]  # noqa: E741
        J, b = module.gate_up_grid(H)
        # g and u exact: every partial sum is an integer of 2^-(8+b) units, at most H 256 J <= 2^24.
        assert 1 <= J <= 16 and H * J <= 1 << 16, case.name
        g_max = H * J * 2.0**-b
        assert g_max <= 40, case.name
        eps = silu_eps(g_max)
        assert eps <= 2.0**-16, case.name
        # The kernel's activation (SiLU rounded first: the worse of the two) and the reference's.
        dk = (1 + eps) * (1 + UB) ** 2 * (1 + U) - 1
        dr = UB + U
        # act: both within (dk + dr) |v| of each other, |h_ref| < 2^8 ulp(h_ref).
        assert (dk + dr) / (1 - dr) * 2**8 <= tol.ulps, case.name
        # out: every term of one sign; kernel and reference within S theta (the reference's float32
        # down GEMM counted), S < 2^8 ulp(want) / ((1 - dr)(1 - gamma_I)); plus the two final roundings.
        theta = (1 + dk) * (1 + gamma(I)) * (1 + U) * (1 + gamma(k)) - (1 - dr) * (1 - gamma(I))
        bound = 1 + 0.5 + 2**8 * theta / ((1 - dr) * (1 - gamma(I)))
        assert bound <= tol.ulps, (case.name, bound)


def small_cases(problem: Problem) -> list[Case]:
    return [c for c in every_case(problem) if c.params["T"] * c.params["H"] * c.params["I"] <= 1 << 22]


@pytest.mark.parametrize("seed", [0, 1])
def test_the_generator_keeps_every_term_of_one_sign_and_the_routing_valid(seed: int) -> None:
    problem = load_problem(SLUG)
    for case in small_cases(problem):
        T, H, I, E, k = (case.params[n] for n in ("T", "H", "I", "E", "topk"))  # noqa: E741
        drawn = problem.generate(case, np.random.default_rng(seed))
        J, b = problem.module.gate_up_grid(H)
        x = drawn["x"].astype(np.float64)
        assert (x >= 0).all() and (x <= 1).all() and (x * 256 == np.round(x * 256)).all()
        w1 = drawn["w1"].astype(np.float64)
        assert (np.abs(w1) <= J * 2.0**-b).all() and (w1 * 2.0**b == np.round(w1 * 2.0**b)).all()
        gate, up = w1[:, :I], w1[:, I:]
        # A gate row and its up row share a sign: each row is of one sign, and the pair agrees.
        for rows in (gate, up):
            assert ((rows >= 0).all(axis=2) | (rows <= 0).all(axis=2)).all()
        assert (np.sign(gate.sum(axis=2)) * np.sign(up.sum(axis=2)) >= 0).all()
        assert (drawn["w2"].astype(np.float64) >= 0).all()
        assert (drawn["topk_weights"] > 0).all()
        ids = drawn["topk_ids"]
        assert ids.shape == (T, k) and (ids >= 0).all() and (ids < E).all()
        assert all(len(set(row)) == k for row in ids.tolist()), case.name


def float32_kernel(inputs: dict[str, np.ndarray], params: dict, *, silu_first: bool, reverse: bool,
                   silu_on_up: bool = False, weights: bool = True) -> dict[str, np.ndarray]:
    """A float32 kernel: g and u in float32 (exact here), SiLU in float32, the activation rounded to
    bfloat16 once (or SiLU rounded first), the down GEMM summed in float32 left to right or right to
    left, the weighting and the sum over the experts in float32."""
    T, H, I = params["T"], params["H"], params["I"]  # noqa: E741
    x = inputs["x"].astype(F32)
    ids, wts = inputs["topk_ids"], inputs["topk_weights"].astype(F32)
    act = np.empty((T, ids.shape[1], I), dtype=F32)
    out = np.zeros((T, H), dtype=F32)
    for j in range(ids.shape[1]):
        for e in np.unique(ids[:, j]):
            tokens = np.nonzero(ids[:, j] == e)[0]
            gu = x[tokens] @ inputs["w1"][e].astype(F32).T
            g, u = gu[:, :I], gu[:, I:]
            if silu_on_up:
                g, u = u, g
            with np.errstate(over="ignore"):
                s = g / (F32(1) + np.exp(-g))
            if silu_first:
                s = s.astype(BF16).astype(F32)
            h = (s * u).astype(BF16).astype(F32)
            act[tokens, j] = h
            terms = h[:, None, :] * inputs["w2"][e].astype(F32)[None, :, :]  # exact products
            if reverse:
                terms = terms[..., ::-1]
            y = np.zeros(terms.shape[:2], dtype=F32)
            for i in range(I):  # one float32 rounding per addition, in this order
                y = y + terms[..., i]
            out[tokens] = out[tokens] + (wts[tokens, j][:, None] * y if weights else y)
    return {"act": act, "out": out}


def passes(problem: Problem, case: Case, inputs: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> bool:
    want = problem.expected(case, inputs)
    return all(compare(name, np.asarray(got[name]).astype(BF16).astype(want[name].dtype), want[name],
                       problem.tolerance) is None for name in want)


@pytest.mark.parametrize("name", ["t33-h96-i130-e16-top4", "t40-h200-i72-e6-top6-every-expert"])
def test_float32_kernels_pass_and_the_bugs_fail(name: str) -> None:
    problem = load_problem(SLUG)
    case = next(c for c in problem.tests if c.name == name)
    for seed in range(3):
        drawn = problem.generate(case, np.random.default_rng(seed))
        for silu_first in (False, True):
            for reverse in (False, True):
                got = float32_kernel(drawn, case.params, silu_first=silu_first, reverse=reverse)
                assert passes(problem, case, drawn, got), (seed, silu_first, reverse)
        # wrong.cpp: SiLU on the up rows; wrong.py: the routing weights ignored.
        assert not passes(problem, case, drawn, float32_kernel(drawn, case.params, silu_first=False, reverse=False,
                                                               silu_on_up=True))
        assert not passes(problem, case, drawn, float32_kernel(drawn, case.params, silu_first=False, reverse=False,
                                                               weights=False))


def test_the_statement_example() -> None:
    """statement.md's worked example, through the reference."""
    problem = load_problem(SLUG)
    params = {"T": 1, "H": 2, "I": 1, "E": 2, "topk": 2}
    inputs = {"x": np.array([[1, 0.5]], dtype=BF16),
              "w1": np.array([[[1, 1], [0.5, 1]], [[-1, -2], [-1, 0]]], dtype=BF16),
              "w2": np.array([[[1], [0.25]], [[0.5], [2]]], dtype=BF16),
              "topk_ids": np.array([[1, 0]], dtype=np.int32), "topk_weights": np.array([[0.25, 0.75]], dtype=F32)}
    got = problem.module.reference(inputs, params)
    assert got["act"].astype(BF16).astype(F32).ravel().tolist() == pytest.approx([0.23828125, 1.2265625])
    assert got["out"].astype(BF16).astype(F32).ravel().tolist() == [0.94921875, 0.349609375]
    assert math.isclose(float(got["out"][0, 0]), 0.75 * 1.2265625 + 0.25 * 0.5 * 0.23828125)

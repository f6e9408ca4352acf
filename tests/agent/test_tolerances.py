"""Check rules an honest float32 kernel always meets, whatever the generator draws: each bound is
derived from the problem's own cases (docs/agent.md, "Check rules"), never from a lucky draw."""

from __future__ import annotations

import numpy as np

from tests.agent.conftest import load_problem

U = 2.0**-24  # float32's unit roundoff
FAST_EXP_ULPS = 2 + 1.16 * 200  # a GPU's fast exp at |x - max| <= 200, the generator's widest rows


def every_case(slug: str) -> list[dict]:
    definition = load_problem(slug).definition
    return [case["params"] for kind in ("tests", "benchmarks", "ranked") for case in definition.get(kind, [])]


def test_softmax_rtol_covers_any_float32_summation_order_on_every_row_the_cases_have() -> None:
    problem = load_problem("softmax")
    longest = max(params["cols"] for params in every_case("softmax"))
    bound = (longest - 1) * U + 2 * FAST_EXP_ULPS * 2 * U + U
    assert problem.tolerance.rtol >= bound, (problem.tolerance.rtol, bound)


def test_a_worst_ordered_float32_row_sum_stays_within_the_softmax_rule() -> None:
    """The bound is reachable in kind: a row of one large value then many small ones, summed in
    float32 left to right, loses each small term's low bits in the same direction."""
    problem = load_problem("softmax")
    longest = max(params["cols"] for params in every_case("softmax"))
    x = np.full(longest, -1.0 + 2.0**-9, dtype=np.float32)
    x[0] = 0.0
    e = np.exp(x.astype(np.float64))
    sequential = np.cumsum(np.exp(x).astype(np.float32), dtype=np.float32)[-1]
    exact = e.sum()
    got, want = np.exp(x).astype(np.float32) / sequential, e / exact
    assert abs(float(sequential) - exact) / exact > 1e-4  # the old rule (rtol 1e-4) refused this honest sum
    tol = problem.tolerance
    assert np.all(np.abs(got - want) <= tol.atol + tol.rtol * np.abs(want))

"""topk-topp-sampling compares its token exactly: every sum of a row's probabilities must be exact in
float32 in any order, on every draw and after the benchmark's changed elements (problem.yaml's
derivation). These tests hold the generator to the premises and a float32 sampler to the reference."""

from __future__ import annotations

import numpy as np
import pytest

from agent.judging.verify import Mutation
from agent.problems.schema import Case
from tests.agent.conftest import load_problem

PROBLEM = load_problem("topk-topp-sampling")
UNIT = 2.0**-19
MUTATIONS = 64  # agent.judging.bench's changed elements per input buffer


def draw(B: int, V: int, seed: int) -> dict[str, np.ndarray]:
    return PROBLEM.generate(Case("draw", ("gpu",), {"B": B, "V": V}), np.random.default_rng(seed))


@pytest.mark.parametrize(("B", "V"), [(1, 1), (3, 7), (8, 1000), (5, 4097), (2, 151936)])
def test_every_draw_keeps_the_premises_of_exact_sums(B: int, V: int) -> None:
    for seed in range(3):
        inputs = draw(B, V, seed)
        units = inputs["probs"].astype(np.float64) / UNIT
        assert np.array_equal(units, np.floor(units)) and units.min() >= 0 and units.max() <= 2**17
        assert units.sum(axis=1).max() <= 2**19  # a row sums to at most 1
        # 64 copies of the largest value into one row keep every sum below 2^5 = 2^24 units
        assert 2**19 + MUTATIONS * 2**17 < 2**24
        assert inputs["top_k"].min() >= 1 and inputs["top_k"].max() <= V
        assert inputs["top_p"].min() > 0 and inputs["top_p"].max() <= 1
        assert inputs["uniforms"].min() >= 0 and inputs["uniforms"].max() < 1


def test_float32_sums_of_a_row_in_any_order_are_exact() -> None:
    rng = np.random.default_rng(7)
    row = draw(2, 4097, 1)["probs"][0]
    row[rng.integers(0, row.size, MUTATIONS)] = row.max()  # the benchmark's worst copies
    for _ in range(20):
        subset = rng.permutation(row)[: rng.integers(1, row.size + 1)]
        assert float(np.cumsum(subset, dtype=np.float32)[-1]) == float(subset.astype(np.float64).sum())
        assert float(np.sum(subset, dtype=np.float32)) == float(subset.astype(np.float64).sum())  # pairwise


def sample_row(p: np.ndarray, k: int, top_p: np.float32, u: np.float32) -> int:
    """The statement's rule, step by step, in float32."""
    order = sorted(range(p.size), key=lambda i: (-float(p[i]), i))
    cum = np.cumsum(p[order], dtype=np.float32)
    threshold = np.float32(top_p * cum[k - 1])
    n = next(m for m in range(1, k + 1) if cum[m - 1] >= threshold)
    r = np.float32(u * cum[n - 1])
    j = next((j for j in range(1, n + 1) if cum[j - 1] > r), n)
    return order[j - 1]


@pytest.mark.parametrize(("B", "V"), [(3, 7), (16, 300), (6, 4097)])
def test_a_float32_sampler_agrees_with_the_reference_on_fresh_and_changed_inputs(B: int, V: int) -> None:
    case = Case("draw", ("gpu",), {"B": B, "V": V})
    for seed in range(3):
        inputs = draw(B, V, seed)
        changed = Mutation.draw(inputs, MUTATIONS, np.random.default_rng(seed)).applied_to(inputs)
        for given in (inputs, changed):
            want = PROBLEM.expected(case, given)["token"]
            got = [sample_row(given["probs"][b], int(given["top_k"][b]), given["top_p"][b], given["uniforms"][b])
                   for b in range(B)]
            assert list(want) == got


def test_the_statement_example() -> None:
    probs = np.array([[0.125, 0.25, 0.0625, 0.25, 0.125, 0.1875]], dtype=np.float32)
    inputs = {"probs": probs, "top_k": np.array([4], dtype=np.int32), "top_p": np.array([0.7], dtype=np.float32),
              "uniforms": np.array([0.6], dtype=np.float32)}
    assert list(PROBLEM.expected(Case("example", ("gpu",), {"B": 1, "V": 6}), inputs)["token"]) == [3]

"""spec-decode-verify: the generator plants what the statement promises (ties at the maximum, drafts
that agree for a run and then differ), and the reference follows the statement's example."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from agent.problems.schema import Case
from tests.agent.conftest import load_problem

PROBLEM = load_problem("spec-decode-verify")


@pytest.mark.parametrize(("B", "K", "V"), [(1, 1, 1), (3, 2, 7), (40, 3, 300), (5, 7, 4097)])
def test_every_run_of_agreeing_drafts_ends_at_a_draft_the_target_did_not_choose(B: int, K: int, V: int) -> None:
    case = Case("draw", ("gpu",), {"B": B, "K": K, "V": V})
    for seed in range(3):
        inputs = PROBLEM.generate(case, np.random.default_rng(seed))
        rows = inputs["target_logits"].astype(np.float32)
        first = rows.argmax(axis=2)  # NumPy's argmax: the first maximum
        accepted = PROBLEM.expected(case, inputs)["accepted"]
        for b in range(B):
            a = int(accepted[b])
            assert np.array_equal(first[b, :a], inputs["draft_tokens"][b, :a])
            assert a == K or first[b, a] != inputs["draft_tokens"][b, a]


def test_one_row_in_four_or_so_has_its_maximum_twice() -> None:
    case = Case("draw", ("gpu",), {"B": 40, "K": 3, "V": 300})
    rows = PROBLEM.generate(case, np.random.default_rng(1))["target_logits"].astype(np.float32).reshape(-1, 300)
    twice = ((rows == rows.max(axis=1, keepdims=True)).sum(axis=1) >= 2).mean()
    assert 0.15 < twice < 0.5


def test_the_statement_example() -> None:
    logits = np.array([[[0.5, 1, 3, -2, 3], [4, 0, 1, 4, -1], [0, 2.5, 0, 0, 1], [0, 0, 0, 0, 0]]], dtype=np.float32)
    inputs = {"target_logits": logits.astype(ml_dtypes.bfloat16), "draft_tokens": np.array([[2, 0, 4]], dtype=np.int32)}
    got = PROBLEM.expected(Case("example", ("gpu",), {"B": 1, "K": 3, "V": 5}), inputs)
    assert list(got["accepted"]) == [2] and got["output_tokens"].tolist() == [[2, 0, 1, -1]]

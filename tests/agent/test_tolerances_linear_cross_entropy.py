"""linear-cross-entropy's check rule (problem.yaml's derivation) holds on every case, its logits are
exact in float32 whatever the order, a float32 kernel with a per-logit online log-sum-exp (the most
rescalings) passes, and one that rounds the logits to bfloat16 does not."""

from __future__ import annotations

import math

import numpy as np

from tests.agent.conftest import load_problem
from tests.agent.test_tolerances_gemm_attention_moe import BF16, F32, U, case_named, every_case, passes

X_MAX = 4096 * 8 * 15 / 256  # the largest |logit| the generator can make at H <= 4096


def loss_bound(vocab: int) -> float:
    eps = (92 + 4 * vocab + 8 * X_MAX) * U
    return -math.log(1 - eps) + vocab * math.exp(-30) + (3 * (2 * X_MAX + 12) + 24) * U


def online_per_logit(x: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """A running maximum over the logits one at a time, l rescaled each time it grows (float32)."""
    m = np.full(x.shape[0], -np.inf, dtype=F32)
    total = np.zeros(x.shape[0], dtype=F32)
    for v in range(x.shape[1]):
        m_new = np.maximum(m, x[:, v])
        total = total * np.exp(m - m_new).astype(F32) + np.exp(x[:, v] - m_new).astype(F32)
        m = m_new
    return (m + np.log(total).astype(F32) - x[np.arange(x.shape[0]), targets]).astype(F32)


def test_bound_holds_on_every_case_and_the_logits_are_exact() -> None:
    problem = load_problem("linear-cross-entropy")
    for case in every_case(problem):
        assert case.params["H"] <= 4096 and case.params["V"] <= 128256, case.name
        assert loss_bound(int(case.params["V"])) <= problem.tolerance.atol, case.name
    assert 4096 * 256 * 15 <= 2**24  # units of 2^-13: every partial sum is an integer float32 holds
    _, inputs = case_named(problem, "t16-v500-h2048")
    h, w = inputs["hidden"].astype(np.float64), inputs["weight"].astype(np.float64)
    assert np.array_equal(h * 32, np.rint(h * 32)) and np.abs(h).max() <= 8
    assert np.array_equal(w * 256, np.rint(w * 256)) and np.abs(w).max() <= 15 / 256


def test_an_online_kernel_passes_and_bfloat16_logits_are_refused() -> None:
    problem = load_problem("linear-cross-entropy")
    case, inputs = case_named(problem, "t16-v500-h2048")
    x = inputs["hidden"].astype(F32) @ inputs["weight"].astype(F32).T  # exact (see the derivation)
    targets = inputs["targets"]
    assert passes(problem, case, inputs, {"loss": online_per_logit(x, targets)})
    rounded = x.astype(BF16).astype(F32)
    assert not passes(problem, case, inputs, {"loss": online_per_logit(rounded, targets)})

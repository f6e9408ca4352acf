"""deepseek-v3-router's check, derived in its problem.yaml: every logit the generator can give is exact in float32,
every choice and group score any input can produce (the bias changed by the benchmark included) is either equal
bit for bit to another or apart from it by far more than float32 sigmoids disagree, so float32 kernels that
sigmoid and sum differently choose the reference's experts; the weights' bound covers them; the wrong ones fail."""

from __future__ import annotations

import itertools

import numpy as np

from agent.judging.verify import compare
from agent.problems.bundle import Case, Problem
from tests.agent.conftest import load_problem

F32 = np.float32
U = 2.0**-24
SLUG = "deepseek-v3-router"
SIGMOID_ERROR = 8 * U  # problem.yaml: a float32 sigmoid's relative error, at most


def every_case(problem: Problem) -> list[Case]:
    return [*problem.tests, *problem.benchmarks, *problem.ranked]


def exact_sigmoid(logits: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.asarray(logits, dtype=np.float64)))


def test_every_case_keeps_the_logits_exact_and_the_inputs_are_the_derived_sets() -> None:
    problem = load_problem(SLUG)
    module = problem.module
    for case in every_case(problem):
        H = case.params["H"]
        assert 256 <= H and (H - 256) // 2 + 1 <= 2**12, case.name  # partial sums below 2^12 in units of 2^-12
    assert np.array_equal(module.LOGITS * 4096, np.round(module.LOGITS * 4096)) and module.LOGITS.max() < 2**-4
    assert np.array_equal(module.BIASES * 16, np.round(module.BIASES * 16))
    assert exact_sigmoid(module.LOGITS).max() + module.BIASES.max() < 1  # choices in [0.5, 1): exact in float32
    case = next(c for c in problem.tests if c.name == "t33-h512")
    inputs = problem.generate(case, np.random.default_rng(1))
    logits = inputs["x"].astype(F32) @ inputs["W"].astype(F32).T
    assert set(np.unique(logits)) <= set(module.LOGITS.astype(F32))
    assert set(np.unique(inputs["bias"])) <= set(module.BIASES.astype(F32))
    assert problem.kept_inputs == {"x", "W"}
    assert problem.tolerance.rtol == 3e-6 and problem.tolerance.atol == 0


def test_every_choice_and_group_score_is_either_equal_or_far_apart() -> None:
    """All 64 (logit, bias) choices; all 2080 group scores (two choices), keyed by their multisets of logits and
    of biases: exact equals share a key (and are equal bit for bit in float32, as the sums are of the same exact
    value), different keys are apart by more than twice the float32 error of each."""
    module = load_problem(SLUG).module
    s = exact_sigmoid(module.LOGITS)
    pairs = [(i, b) for i in range(s.size) for b in range(module.BIASES.size)]
    choice = {p: s[p[0]] + module.BIASES[p[1]] for p in pairs}
    gap = np.diff(np.sort(list(choice.values()))).min()
    choice_error = SIGMOID_ERROR  # the score's error; the add is exact
    assert gap > 2 * choice_error and gap > 6e-5
    groups: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}
    for p, q in itertools.combinations_with_replacement(pairs, 2):
        key = (tuple(sorted((p[0], q[0]))), tuple(sorted((p[1], q[1]))))
        groups[key] = choice[p] + choice[q]
    assert len(groups) == 1360
    group_gap = np.diff(np.sort(list(groups.values()))).min()
    group_error = 2 * choice_error + U  # two choices, one rounding in [1, 2)
    assert group_gap > 2 * group_error and group_gap > 5.8e-5
    # Exactly equal sums from different pairs: the same multisets, paired otherwise: float32 sums agree bit for bit.
    s32 = exact_sigmoid(module.LOGITS).astype(F32)
    b32 = module.BIASES.astype(F32)
    assert (s32[3] + b32[1]) + (s32[5] + b32[2]) == (s32[5] + b32[1]) + (s32[3] + b32[2])


def float32_router(logits: np.ndarray, bias: np.ndarray, sigmoid: str, group_max: bool = False,
                   use_bias: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """A float32 kernel's routing, with one of the sigmoids kernels use."""
    lg = logits.astype(F32)
    if sigmoid == "exp":
        score = F32(1) / (F32(1) + np.exp(-lg))
    elif sigmoid == "tanh":
        score = F32(0.5) + F32(0.5) * np.tanh(lg * F32(0.5))
    else:  # exp through exp2 of a rounded argument, as fast exponentials do
        score = F32(1) / (F32(1) + np.exp2((-lg * F32(1.4426950408889634)).astype(F32)))
    score = score.astype(F32)
    choice = (score + (bias.astype(F32) if use_bias else F32(0))).astype(F32)
    T = lg.shape[0]
    grouped = choice.reshape(T, 8, 32)
    top = -np.sort(-grouped, axis=2)
    group = top[:, :, 0] if group_max else (top[:, :, 0] + top[:, :, 1]).astype(F32)
    groups = np.argsort(-group, axis=1, kind="stable")[:, :4]
    allowed = np.zeros((T, 8), dtype=bool)
    np.put_along_axis(allowed, groups, True, axis=1)
    masked = np.where(np.repeat(allowed, 32, axis=1), choice, -np.inf)
    ids = np.sort(np.argsort(-masked, axis=1, kind="stable")[:, :8], axis=1)
    chosen = np.take_along_axis(score, ids, axis=1)
    total = chosen[:, 0]
    for j in range(1, 8):
        total = (total + chosen[:, j]).astype(F32)
    return (chosen / total[:, None] * F32(2.5)).astype(F32), ids.astype(np.int32)


def judged(problem: Problem, case: Case, inputs: dict[str, np.ndarray], got: tuple[np.ndarray, np.ndarray]) -> bool:
    want = problem.expected(case, inputs)
    return all(compare(name, value, want[name], problem.tolerance) is None
               for name, value in (("weights", got[0]), ("ids", got[1])))


def test_float32_kernels_choose_as_the_reference_with_the_bias_changed_and_the_wrong_ones_fail() -> None:
    problem = load_problem(SLUG)
    case = Case("t2048-h512", ("host",), {"T": 2048, "H": 512})
    rng = np.random.default_rng(7)
    inputs = problem.generate(case, rng)
    logits = inputs["x"].astype(F32) @ inputs["W"].astype(F32).T
    for changed in range(3):
        if changed:  # the benchmark's change: 64 biases take values from elsewhere in the buffer
            bias = inputs["bias"].copy()
            bias[rng.integers(0, 256, 64)] = bias[rng.integers(0, 256, 64)]
            inputs = {**inputs, "bias": bias}
        for sigmoid in ("exp", "tanh", "exp2"):
            assert judged(problem, case, inputs, float32_router(logits, inputs["bias"], sigmoid)), sigmoid
        assert not judged(problem, case, inputs, float32_router(logits, inputs["bias"], "exp", use_bias=False))
        assert not judged(problem, case, inputs, float32_router(logits, inputs["bias"], "exp", group_max=True))
    # Ties decide (the rule matters): on some tokens the 8th and 9th largest choices of the allowed groups
    # are equal; on others a group ties with the 5th.
    choice = exact_sigmoid(logits) + inputs["bias"]
    top = -np.sort(-choice.reshape(-1, 8, 32), axis=2)
    group = -np.sort(-(top[:, :, 0] + top[:, :, 1]), axis=1)
    assert (group[:, 3] == group[:, 4]).any()
    _, ids = float32_router(logits, inputs["bias"], "exp")
    allowed_groups = np.argsort(-(top[:, :, 0] + top[:, :, 1]), axis=1, kind="stable")[:, :4]
    allowed = np.zeros((2048, 8), dtype=bool)
    np.put_along_axis(allowed, allowed_groups, True, axis=1)
    ranked = -np.sort(-np.where(np.repeat(allowed, 32, axis=1), choice, -np.inf), axis=1)
    assert (ranked[:, 7] == ranked[:, 8]).any() and ids.shape == (2048, 8)

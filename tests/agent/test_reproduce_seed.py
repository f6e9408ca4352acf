"""A mismatch can be reproduced: the public check's inputs come from a seed (the job's, else drawn
for it) and each case's name alone, the message names the seed and the command that replays it,
and the same seed gives the same first mismatch, through the platform's path and through
`python -m agent run --seed` alike."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agent.judging.phase import public_case_seed
from tests.agent.conftest import load_problem

ROOT = Path(__file__).resolve().parents[2]
# Wrong only where an input is large: where the first mismatch lies depends on the inputs.
WRONG_WHERE_LARGE = """#include <cstddef>
extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i] + (a[i] > 0.9f ? 0.5f : 0.0f);
}
"""


def test_a_test_cases_inputs_depend_on_the_seed_and_its_name_alone() -> None:
    problem = load_problem("vector-add")
    case = problem.cases("test", "host")[-1]

    def inputs(seed: int) -> dict[str, np.ndarray]:
        return problem.generate(case, np.random.default_rng(public_case_seed(seed, case.name)))

    first, again, other = inputs(1234), inputs(1234), inputs(1235)
    assert all(np.array_equal(first[k], again[k]) for k in first)
    assert not np.array_equal(first["a"], other["a"])
    assert public_case_seed(1234, case.name) != public_case_seed(1234, problem.cases("test", "host")[0].name)


@pytest.mark.integration
def test_the_same_seed_gives_the_same_mismatch_and_the_message_says_how_to_replay_it(judge_run_job, tmp_path):
    problem = load_problem("vector-add")
    first, _ = judge_run_job(problem, WRONG_WHERE_LARGE, "cpp", "check", seed=424242)
    again, events = judge_run_job(problem, WRONG_WHERE_LARGE, "cpp", "check", seed=424242)
    assert first["status"] == again["status"] == "WRONG_ANSWER"
    assert first["reason"] == again["reason"]
    command = "python -m agent run --problem vector-add --mode check --seed 424242 YOUR_FILE"
    assert command in first["reason"]
    failed = next(e.data for e in events if e.kind == "TEST_RESULT" and not e.data["passed"])
    assert failed["seed"] == 424242
    where = re.search(r"c\[\d+\] = \S+ but expected \S+: \|got - expected\| = \S+ > bound \S+ = atol \S+ \+ rtol",
                      failed["message"])
    assert where, failed["message"]

    source = tmp_path / "wrong.cpp"
    source.write_text(WRONG_WHERE_LARGE)
    local = subprocess.run([sys.executable, "-m", "agent", "run", "--workdir", str(tmp_path / "work"), "--problem",
                            "vector-add", "--mode", "check", "--seed", "424242", str(source)],
                           cwd=ROOT, capture_output=True, text=True, timeout=140)
    assert local.returncode == 1, local.stdout + local.stderr
    assert where.group(0) in local.stdout

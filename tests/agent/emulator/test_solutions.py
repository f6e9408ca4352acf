"""Every catalogue solution (`problems/*/solutions/hip.hip` and `cuda.cu`) passes check through the
agent on the emulated device: compiled by the agent (rewriter + g++ in the sandbox), run by the
judge's harness in a sandboxed child, every test case of both device classes within the
emulator's size budget, verified by the parent."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.emulator.budget import emulated_cases
from agent.limits import CEILINGS
from tests.agent.conftest import load_problem, problem_dirs, run_job

SOLUTIONS = {"hip": "hip.hip", "cuda": "cuda.cu"}

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


@pytest.mark.parametrize(("slug", "api"), [(d.name, api) for d in problem_dirs() for api in SOLUTIONS])
def test_solution_passes_check_through_the_agent_on_the_emulated_device(emu_config: AgentConfig, slug: str,
                                                                         api: str) -> None:
    problem = load_problem(slug)
    cases, skipped = emulated_cases(problem)
    assert cases, f"cases over the emulator's budget: {[c.name for c in skipped]}"
    assert not skipped, f"cases over the emulator's budget: {[c.name for c in skipped]}"
    source = (Path(problem_dirs()[0]).parent / slug / "solutions" / SOLUTIONS[api]).read_text()
    # The emulated check's wall-clock limit at its ceiling: the largest cases (leaky-relu's 6144x4096)
    # take several times longer in a make test that keeps every core busy than alone. What is tested
    # is the answer, not the machine's speed.
    result, events = run_job(problem, source, api, "check", {"emulated_check_s": CEILINGS["emulated_check_s"]},
                             config=emu_config)
    assert result["status"] == "CHECKED", result
    assert result["reason"] == f"all {len(cases)} tests passed on the emulated device (CPU)"
    assert result["summary"]["device"] == "emulated"
    assert [e.data["case"] for e in events if e.kind == "TEST_RESULT"] == [c.name for c in cases]

"""The emulator's conformance suite (conformance/, run by conformance.py): honest kernels in the
styles people really write are CHECKED on the emulated device, buggy ones get their verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.problems.bundle import parse_definition
from tests.agent.conftest import load_problem, run_job
from tests.agent.emulator.conformance import case_indices, entries, judge_batched

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


def test_the_suite_has_enough_honest_and_buggy_kernels() -> None:
    found = entries()
    honest = [e for e in found if e.verdict == "CHECKED"]
    buggy = [e for e in found if e.verdict != "CHECKED"]
    assert len(honest) >= 30, (len(honest), len(buggy))
    assert len(buggy) >= 15, (len(honest), len(buggy))
    for entry in found:
        assert case_indices(entry, load_problem(entry.problem)), f"{entry.name}: no case to run"


@pytest.mark.parametrize("language", ["hip", "cuda"])
def test_batched_entries_get_their_verdicts(emu_runtime: Path, emu_workdir: Path, language: str) -> None:
    chosen = [e for e in entries() if e.language == language and e.judge != "agent"]
    problems = {e.problem: load_problem(e.problem) for e in chosen}
    verdicts = judge_batched(language, chosen, problems, emu_runtime, emu_workdir)
    wrong = {e.name: (f"{e.verdict}: {e.text}", verdicts.get(e.name)) for e in chosen
             if not e.matches(verdicts.get(e.name, "missing"))}
    assert not wrong, wrong


@pytest.mark.parametrize("entry", [e for e in entries() if e.judge == "agent"], ids=lambda e: e.name)
def test_agent_judged_entries_get_their_verdicts(emu_config: AgentConfig, entry) -> None:  # noqa: ANN001
    base = load_problem(entry.problem)
    indices = case_indices(entry, base)
    tests = [t for i, t in enumerate(base.definition["tests"]) if i in indices]
    problem = parse_definition({**base.definition, "tests": tests}, base.reference_source)
    result, _ = run_job(problem, entry.path.read_text(), entry.language, "check", config=emu_config)
    got = result["status"] if result["status"] == "CHECKED" else f"{result['status']}: {result['reason']}"
    assert entry.matches(got), result

"""Every catalogue problem through `manage.py problem check`'s own module (submissions.authoring.check):
its cpp solution ACCEPTED on the host and CHECKED under more seeds, its wrong.cpp WRONG_ANSWER under
each, its cpp starter compiling, its hip and cuda solutions CHECKED on the emulated device within
the emulator's budget, and where it offers Triton its triton.py CHECKED in Triton's interpreter, its
wrong.py refused and its template compiled, each through the agent's real judge (compiler, bubblewrap
sandbox, harness) in an agent process of its own (`python -m agent jobs`), one per pytest-xdist worker.

One test per problem, so pytest-xdist spreads the catalogue over its workers and a failure names the
problem. The hip and cuda sources' compiles with hipcc and nvcc stay in
tests/agent/test_problem_catalogue.py, where all of them share one translation unit per compiler.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.sandbox.modes import SandboxUnavailable, detect_sandbox
from submissions.authoring.check import available_devices, check_problem, format_table
from submissions.authoring.local_agent import LocalAgent

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"
SLUGS = sorted(d.name for d in PROBLEMS.iterdir() if (d / "problem.yaml").is_file())
DEVICES = ("host", "emulated", "triton")  # triton: problems with a Triton template only

# db_agnostic: the outcome is the agent's alone, so the PostgreSQL pass does not repeat it.
pytestmark = [pytest.mark.integration, pytest.mark.db_agnostic, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def checking_agent(tmp_path_factory: pytest.TempPathFactory, shared_agent_builds: Path) -> Iterator[LocalAgent]:
    """A host agent with the real bubblewrap sandbox; one per pytest-xdist worker (a session fixture
    groups no tests), its emulator runtime the run's shared build (the process inherits
    HIPJUDGE_AGENT_BUILD_DIR)."""
    try:
        detect_sandbox(preferred="bwrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap is not usable on this machine: {exc}")
    # HIPJUDGE_SANDBOX=bwrap: the environment must not swap the sandbox under test.
    workdir = tmp_path_factory.mktemp("problem-check")
    with LocalAgent(workdir, device="host", env={"HIPJUDGE_SANDBOX": "bwrap"}) as agent:
        if "emulated" not in available_devices(agent):
            pytest.skip("the emulator's runtime does not build here (g++ missing?)")
        yield agent


@pytest.mark.parametrize("slug", SLUGS)
def test_problem_check_finds_no_surprise(slug: str, checking_agent: LocalAgent) -> None:
    devices = set(DEVICES) & set(available_devices(checking_agent))  # triton where it is installed
    rows = check_problem(PROBLEMS / slug, checking_agent, devices)
    assert not any(row.surprise for row in rows), format_table(rows)
    if not (PROBLEMS / slug / "templates" / "triton.py").is_file():
        devices.discard("triton")
    assert {row.device for row in rows} == devices, format_table(rows)

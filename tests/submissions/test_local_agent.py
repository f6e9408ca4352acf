"""`python -m agent jobs` spoken to by the platform (submissions.authoring.local_agent): its first
line says what the agent is, a job's lines are its events in protocol v1's shapes ending in RESULT,
a request the agent refuses is an ERROR result naming the field, and an agent that cannot start
(no sandbox) is a clear error of `manage.py problem check`, never a traceback."""

from __future__ import annotations

import io
import uuid
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from agent import protocol
from agent.problems import load_problem_dir
from agent.sandbox.modes import SandboxUnavailable, detect_sandbox
from submissions.authoring.local_agent import AgentUnavailable, LocalAgent

ROOT = Path(__file__).resolve().parents[2]
CPP = (ROOT / "problems" / "vector-add" / "solutions" / "cpp.cpp").read_text()

pytestmark = [pytest.mark.integration, pytest.mark.db_agnostic, pytest.mark.timeout(300)]


def test_the_agent_process_judges_jobs_in_turn_and_answers_in_the_protocols_shapes(
        tmp_path: Path, shared_agent_builds: Path) -> None:
    try:
        detect_sandbox(preferred="bwrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap is not usable on this machine: {exc}")
    bundle = load_problem_dir(ROOT / "problems" / "vector-add").to_bundle()
    with LocalAgent(tmp_path / "agent", device="host", env={"HIPJUDGE_SANDBOX": "bwrap"}) as agent:
        assert set(agent.ready) == set(protocol.AgentReady.__required_keys__)
        assert agent.health["protocol"] == protocol.PROTOCOL_VERSION and agent.health["device"] == "host"
        assert set(protocol.Health.__required_keys__) <= set(agent.health)

        refused, kinds = agent.judge({"id": f"t-{uuid.uuid4().hex}", "problem": bundle, "language": "cobol",
                                      "source": CPP, "mode": "compile"})
        assert (refused["status"], kinds) == ("ERROR", [])
        assert refused["reason"].startswith("the agent refused the job: language: must be one of")

        result, kinds = agent.judge({"id": f"t-{uuid.uuid4().hex}", "problem": bundle, "language": "cpp",
                                     "source": CPP, "mode": "compile", "cache_scope": "tests"})
        assert result["status"] == "COMPILED", result
        assert kinds == [protocol.STATUS, protocol.COMPILE_RESULT, protocol.RESULT]


def test_an_agent_without_a_sandbox_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(AgentUnavailable, match=r"the agent stopped \(exit status 3\): agent: no sandbox available"):
        LocalAgent(tmp_path / "agent", device="host", env={"HIPJUDGE_SANDBOX": "none"})


def test_problem_check_without_a_sandbox_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPJUDGE_SANDBOX", "none")
    with pytest.raises(CommandError, match=r"^the checking agent: the agent stopped \(exit status 3\): agent: no "
                                           r"sandbox available"):
        call_command("problem", "--root", str(ROOT / "problems"), "check", "vector-add", "--workdir",
                     str(tmp_path / "agent"), stdout=io.StringIO(), stderr=io.StringIO())

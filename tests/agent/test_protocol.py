"""Protocol v1 (agent/protocol.py) is what the agent says: every place that emits an event names it by
the protocol's constant, a real leaderboard job's events (every event type but HEARTBEAT) and a
heartbeat carry exactly their typed payload's keys, and the job runner's answers are the HTTP API's
shapes. tests/agent/conftest.py's run_job checks every event of every job the agent's tests judge
the same way (agent.protocol.event_problems)."""

from __future__ import annotations

import ast
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agent import protocol
from agent.judging.jobs import JobManager
from tests.agent.conftest import load_problem
from tests.agent.test_jobspec import VECTOR_ADD_CPP

AGENT = Path(protocol.__file__).parent
EMITTERS = {"emit": 0, "_append": 1}  # the function that emits -> the position of the event's type
NAMES = {name for name in dir(protocol) if getattr(protocol, name) in protocol.EVENT_TYPES and name.isupper()
         and name != "EVENT_TYPES"}


def emit_sites() -> list[tuple[str, ast.expr]]:
    """(where, the argument naming the event) of every call of an emitter in agent/."""
    sites = []
    for path in sorted(AGENT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if name in EMITTERS and len(node.args) > EMITTERS[name]:
                    sites.append((f"{path.relative_to(AGENT.parent)}:{node.lineno}", node.args[EMITTERS[name]]))
    return sites


def test_every_event_the_agent_emits_is_named_by_the_protocols_constant() -> None:
    sites = emit_sites()
    assert len(sites) >= 10  # the scan sees the judge's, the phases' and the job runner's emits
    wrong = [f"{where}: {ast.unparse(arg)}" for where, arg in sites
             if not (isinstance(arg, ast.Name) and (arg.id in NAMES or arg.id == "event_type"))]
    assert wrong == []  # `event_type`: the job runner's emit, passing on the judge's


def test_the_event_names_are_the_wire_names_and_each_has_a_payload_type() -> None:
    # Stored in the platform's database and read by the CLI: a renamed constant must not rename the wire.
    assert protocol.EVENT_TYPES == ("STATUS", "COMPILE_RESULT", "TEST_RESULT", "BENCHMARK_RESULT",
                                    "RANKED_RESULT", "HEARTBEAT", "RESULT")
    assert {getattr(protocol, name) for name in NAMES} == set(protocol.EVENT_TYPES)
    assert set(protocol.EVENT_PAYLOADS) == set(protocol.EVENT_TYPES)


def test_event_problems_names_an_unknown_type_a_missing_key_and_an_unknown_key() -> None:
    assert protocol.event_problems("STATUS", {"status": "CHECKING"}) == []
    assert protocol.event_problems("COMPILE_RESULT", {"ok": True, "output": "", "cached": False, "seconds": 0,
                                                      "report": {}}) == []
    assert protocol.event_problems("SPEEDUP", {}) == ["'SPEEDUP' is not an event type of protocol v1"]
    assert protocol.event_problems("HEARTBEAT", {"status": "CHECKING", "elapsed": 1}) == [
        "HEARTBEAT: no 'elapsed_s'", "HEARTBEAT: unknown 'elapsed'"]


@pytest.mark.integration
@pytest.mark.timeout(180)
def test_a_leaderboard_job_says_every_event_in_its_typed_shape(judge_run_job: Any) -> None:
    result, events = judge_run_job(load_problem("vector-add"), VECTOR_ADD_CPP, "cpp", "leaderboard",
                                   {"case_budget_s": 0.2})
    assert result["status"] == "ACCEPTED", result
    assert {e.kind for e in events} == set(protocol.EVENT_TYPES) - {protocol.HEARTBEAT}
    assert [p for e in events for p in protocol.event_problems(e.kind, e.data)] == []
    assert [e.data["status"] for e in events if e.kind == protocol.STATUS] == list(protocol.STAGES)
    assert result["status"] in protocol.FINAL_STATUSES


def test_a_heartbeat_and_the_job_runners_answers_have_the_protocols_shapes(tmp_path: Path) -> None:
    release = threading.Event()

    def judge(spec: Any, config: Any, emit: Any, cancel: threading.Event) -> None:
        release.wait(30)
        emit(protocol.RESULT, {"status": "CHECKED", "reason": "fine", "score_ms": None, "summary": {}})

    manager = JobManager(SimpleNamespace(workdir=tmp_path), judge_fn=judge, heartbeat_seconds=0.05,  # type: ignore[arg-type]
                         parse_spec=lambda body: SimpleNamespace(id=body["id"]))
    job, _ = manager.submit({"id": "beating"})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(e["type"] == protocol.HEARTBEAT for e in job.events):
        time.sleep(0.02)
    release.set()
    assert job.done.wait(30)
    found = manager.events("beating")
    assert found is not None
    described, events = found
    beats = [e for e in events if e["type"] == protocol.HEARTBEAT]
    assert beats and [p for e in events for p in protocol.event_problems(e["type"], e["payload"])] == []
    assert all(set(e) == set(protocol.Event.__required_keys__) for e in events)
    assert set(described) == set(protocol.JobDescription.__required_keys__)
    assert described["state"] == protocol.FINISHED and described["result"]["status"] == "CHECKED"

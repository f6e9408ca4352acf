"""The parent's reference on a worker thread (agent.expected): computed while the kernel's call runs,
its failures as clear as when it ran after the call, its overrun bounded by the phase's limit."""

from __future__ import annotations

import copy
import threading
import uuid

import pytest

from agent.config import AgentConfig
from agent.jobs import JobManager
from agent.problems import Problem, parse_definition
from tests.agent.conftest import load_problem

IN_CALL = "hj-in-call"  # the kernel's thread carries this name while solution() runs, and only then
SLEEPY_KERNEL = rf"""#include <cstddef>
#include <ctime>
#include <sys/prctl.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {{
    char name[16] = {{0}};
    prctl(PR_GET_NAME, name);
    prctl(PR_SET_NAME, "{IN_CALL}");
    struct timespec rest = {{1, 500000000}};
    nanosleep(&rest, nullptr);
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    prctl(PR_SET_NAME, name);
}}
"""
VECTOR_ADD_CPP = load_problem("vector-add").baselines["cpp"]
GENERATE = '''
def generate(params, rng):
    n = params["n"]
    return {"a": 2 * rng.random(n, dtype=np.float32) - 1, "b": 2 * rng.random(n, dtype=np.float32) - 1}
'''
# Right only when it saw the kernel's thread inside its call: a reference computed after the call
# never does, and gives a - b (a wrong answer) after a bounded wait.
WATCHING_REFERENCE = f'''import os
import time

import numpy as np
{GENERATE}

def _in_call():
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for tid in os.listdir(f"/proc/{{pid}}/task"):
                with open(f"/proc/{{pid}}/task/{{tid}}/comm") as comm:
                    if comm.read().strip() == "{IN_CALL}":
                        return True
        except OSError:
            continue
    return False


def reference(inputs, params):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if _in_call():
            return {{"c": inputs["a"] + inputs["b"]}}
        time.sleep(0.01)
    return {{"c": inputs["a"] - inputs["b"]}}
'''
RAISING_REFERENCE = f'''import numpy as np
{GENERATE}

def reference(inputs, params):
    raise ValueError("the reference cannot solve n=" + str(params["n"]))
'''
SLOW_REFERENCE = f'''import time

import numpy as np
{GENERATE}

def reference(inputs, params):
    time.sleep(5)
    return {{"c": inputs["a"] + inputs["b"]}}
'''


def one_case_problem(reference_source: str, n: int = 1000) -> Problem:
    """vector-add with a single host test case and the given reference."""
    definition = copy.deepcopy(load_problem("vector-add").definition)
    definition["tests"] = [{"name": f"n={n}", "devices": ["host", "gpu"], "params": {"n": n}}]
    return parse_definition(definition, reference_source)


def reference_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("reference-")]


@pytest.mark.integration
def test_the_reference_runs_while_the_kernels_call_does(judge_run_job):
    result, events = judge_run_job(one_case_problem(WATCHING_REFERENCE), SLEEPY_KERNEL, "cpp", "check")
    assert result["status"] == "CHECKED", result  # the reference saw the kernel inside its call
    assert [e.data["passed"] for e in events if e.kind == "TEST_RESULT"] == [True]
    assert reference_threads() == []  # none outlives its phase


@pytest.mark.integration
def test_a_raising_reference_fails_the_job_with_its_own_error_as_before(judge_config: AgentConfig):
    manager = JobManager(judge_config)
    body = {"id": f"raising-{uuid.uuid4().hex}", "problem": one_case_problem(RAISING_REFERENCE, 77).to_bundle(),
            "language": "cpp", "source": VECTOR_ADD_CPP, "mode": "check"}
    job, _ = manager.submit(body)
    assert job.done.wait(120)
    found = manager.events(job.id)
    assert found is not None
    result = found[0]["result"]
    assert result["status"] == "ERROR", result
    assert result["reason"] == "The agent failed while judging (ValueError: the reference cannot solve n=77).", result
    assert reference_threads() == []


@pytest.mark.integration
def test_a_raising_reference_is_raised_again_with_its_traceback_in_reference_py(judge_run_job):
    with pytest.raises(ValueError, match="the reference cannot solve n=5") as raised:
        judge_run_job(one_case_problem(RAISING_REFERENCE, 5), VECTOR_ADD_CPP, "cpp", "check")
    assert str(raised.traceback[-1].path).endswith("vector-add/reference.py")  # the reference's own line


@pytest.mark.integration
def test_a_reference_overrunning_the_phases_wall_clock_ends_in_its_time_limit(judge_run_job):
    result, _ = judge_run_job(one_case_problem(SLOW_REFERENCE), VECTOR_ADD_CPP, "cpp", "check", {"check_s": 2})
    assert result["status"] == "TIME_LIMIT_EXCEEDED", result
    assert "2 s limit" in result["reason"] and "case 'n=1000'" in result["reason"], result
    assert reference_threads() == []  # the phase waited for it before returning

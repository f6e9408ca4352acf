"""The parent's reference on a worker thread (agent.judging.expected): computed while the kernel's call runs,
its failures as clear as when it ran after the call, its time not the kernel's: bounded by a budget of its own."""

from __future__ import annotations

import copy
import threading
import uuid

import pytest

from agent.config import AgentConfig
from agent.judging.jobs import JobManager
from agent.problems.bundle import Problem, parse_definition, problem_from_bundle
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


# The ranked pass: a reference that finds the parent generating the next run's inputs while it runs
# writes a line to SEEN (a path put in its source).
GENERATION_WATCHING_REFERENCE = '''import threading
import time

import numpy as np

GENERATING = threading.Event()


def generate(params, rng):
    n = params["n"]
    GENERATING.set()
    time.sleep(0.3 if n == RANKED_N else 0)
    GENERATING.clear()
    return {"a": 2 * rng.random(n, dtype=np.float32) - 1, "b": 2 * rng.random(n, dtype=np.float32) - 1}


def reference(inputs, params):
    if params["n"] == RANKED_N and GENERATING.wait(1.0):
        with open(SEEN, "a") as seen:
            seen.write("generation in flight\\n")
    return {"c": inputs["a"] + inputs["b"]}
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
def test_the_judges_own_work_does_not_count_against_the_kernels_wall_clock(judge_run_job):
    """A reference that takes 5 s, with a 2 s limit for the tests: an honest kernel is CHECKED,
    however slow the judge's machine is at its own work."""
    result, _ = judge_run_job(one_case_problem(SLOW_REFERENCE), VECTOR_ADD_CPP, "cpp", "check", {"check_s": 2})
    assert result["status"] == "CHECKED", result
    assert reference_threads() == []  # the phase waited for it before returning


@pytest.mark.integration
def test_the_judges_work_over_its_budget_is_an_error_of_the_judge(judge_run_job, monkeypatch):
    monkeypatch.setattr("agent.harness.phase_child.JUDGE_WORK_S", 1.0)
    result, _ = judge_run_job(one_case_problem(SLOW_REFERENCE), VECTOR_ADD_CPP, "cpp", "check", {"check_s": 30})
    assert result["status"] == "ERROR", result
    assert "the judge's own work (inputs and references) took over 1 s" in result["reason"], result
    assert "case 'n=1000'" in result["reason"], result
    assert "not the kernel's" in result["reason"], result
    assert reference_threads() == []


@pytest.mark.integration
def test_the_ranked_passs_references_run_beside_the_next_runs_generation(judge_run_job, tmp_path):
    seen = tmp_path / "seen"
    vector_add = load_problem("vector-add")
    ranked_n = vector_add.cases("ranked", "host")[0].params["n"]
    source = GENERATION_WATCHING_REFERENCE.replace("RANKED_N", str(ranked_n)).replace("SEEN", repr(str(seen)))
    bundle = {k: v for k, v in vector_add.to_bundle().items() if k != "hash"}
    problem = problem_from_bundle({**bundle, "reference_py": source})  # the cpp solution stays the partner
    result, _ = judge_run_job(problem, VECTOR_ADD_CPP, "cpp", "leaderboard", {"case_budget_s": 0.2})
    assert result["status"] == "ACCEPTED", result
    assert seen.exists(), "no reference ran beside a generation"
    assert len(seen.read_text().splitlines()) >= 10, "no reference ran beside a generation"
    assert reference_threads() == []


@pytest.mark.integration
def test_a_ranked_pass_whose_inputs_take_long_to_make_is_not_the_kernels_time_limit(judge_run_job, tmp_path):
    """Each of the ranked pass's fresh input sets takes 0.5 s to make (the largest cases take far
    longer on a VM): over 10 s of the judge's work for 21 of them, against an 8 s benchmark limit.
    One public and one ranked case of about 2^20 elements: large enough that a call takes measurable
    time on an idle machine (a few thousand elements took "no time at all" there), small enough
    that what is left of the limit is the kernels' own calls on a loaded one."""
    vector_add = load_problem("vector-add")
    definition = copy.deepcopy(vector_add.definition)
    ranked_n = (1 << 20) + 7  # a ranked case differs from every public one
    definition["ranked"] = [{"name": "n=2^20+7", "devices": ["host", "gpu"], "params": {"n": ranked_n}}]
    definition["benchmarks"] = [{"name": "n=2^20", "devices": ["host", "gpu"], "params": {"n": 1 << 20}}]
    source = GENERATION_WATCHING_REFERENCE.replace("time.sleep(0.3 if", "time.sleep(0.5 if").replace(
        "RANKED_N", str(ranked_n)).replace("SEEN", repr(str(tmp_path / "seen")))
    assert f"time.sleep(0.5 if n == {ranked_n}" in source
    problem = parse_definition(definition, source)
    result, _ = judge_run_job(problem, VECTOR_ADD_CPP, "cpp", "leaderboard",
                              {"case_budget_s": 0.1, "benchmark_s": 8})
    assert result["status"] == "ACCEPTED", result

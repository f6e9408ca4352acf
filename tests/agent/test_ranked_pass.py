"""The ranked pass of a leaderboard job (agent.judging.ranked) through the real judge on the host device:
secret inputs from the platform's seed, the determinism check, every timed output checked, the
problem's own solution timed beside the kernel in a process of its own, and the ranked result the
platform reads (RANKED_RESULT events, RESULT.summary.ranked). The kernels that fail it on purpose
are in the hostile corpus (tuned_to_public_shapes, uninitialised_workspace, print_ranked_inputs)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from agent.judging.phase import case_seed
from agent.judging.ranked import ranked_secret, runs_differ
from agent.problems.bundle import Case, Problem, Tolerance, problem_from_bundle
from tests.agent.conftest import load_problem
from tests.agent.test_jobspec import VECTOR_ADD_CPP

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]
FAST = {"case_budget_s": 0.2}


def _with_baseline(problem: Problem, source: str | None) -> Problem:
    """The same problem with another (or no) cpp solution to time against."""
    bundle = {k: v for k, v in problem.to_bundle().items() if k != "hash"}
    baselines = {k: v for k, v in bundle["baselines"].items() if k != "cpp"}
    if source is not None:
        baselines["cpp"] = source
    return problem_from_bundle({**bundle, "baselines": baselines})


def test_a_leaderboard_job_ranks_on_the_secret_cases_with_intervals_and_a_speedup(judge_run_job: Any) -> None:
    problem = load_problem("vector-add")
    result, events = judge_run_job(problem, VECTOR_ADD_CPP, "cpp", "leaderboard", FAST)
    assert result["status"] == "ACCEPTED", result
    statuses = [e.data["status"] for e in events if e.kind == "STATUS"]
    assert statuses == ["COMPILING", "CHECKING", "BENCHMARKING", "RANKING"]
    for bench in (e.data for e in events if e.kind == "BENCHMARK_RESULT"):
        low, high = bench["ci95_ms"]
        assert low <= bench["mean_ms"] <= high  # every case reports its interval, the public ones too
    ranked_events = [e.data for e in events if e.kind == "RANKED_RESULT"]
    assert [c["case"] for c in ranked_events] == [c.name for c in problem.cases("ranked", "host")]
    for case in ranked_events:
        assert case["runs"] >= 3 and case["ci95_ms"][0] <= case["mean_ms"] <= case["ci95_ms"][1]
        assert case["reference_mean_ms"] > 0 and case["speedup"] > 0  # agent.judging.bench.paired_speedup
    ranked = result["summary"]["ranked"]
    assert ranked["passed"] is True and ranked["cases"] == ranked_events
    assert ranked["score_ms"] == pytest.approx(math.exp(np.mean([math.log(c["mean_ms"]) for c in ranked_events])))
    assert ranked["ci95_ms"][0] <= ranked["score_ms"] <= ranked["ci95_ms"][1]
    assert ranked["speedup"] > 0 and "ranked on 1 secret case" in result["reason"]


def test_without_a_solution_of_the_problems_own_in_the_language_it_ranks_without_a_speedup(
        judge_run_job: Any) -> None:
    result, events = judge_run_job(_with_baseline(load_problem("vector-add"), None), VECTOR_ADD_CPP, "cpp",
                                   "leaderboard", FAST)
    assert result["status"] == "ACCEPTED", result
    assert result["summary"]["ranked"]["speedup"] is None
    assert all(e.data["speedup"] is None for e in events if e.kind == "RANKED_RESULT")


@pytest.mark.parametrize(("baseline", "words"), [
    ('extern "C" void solution(const float* a, const float* b, float* c, size_t n) { oops }',
     "did not compile here"),
    ('#include <cstdlib>\n#include <cstddef>\nextern "C" void solution(const float* a, const float* b, float* c, '
     "size_t n) { std::exit(9); }", "failed (a judge error)"),
], ids=["does_not_compile", "crashes"])
def test_a_broken_reference_is_a_judge_error_not_the_users(judge_run_job: Any, baseline: str, words: str) -> None:
    result, _ = judge_run_job(_with_baseline(load_problem("vector-add"), baseline), VECTOR_ADD_CPP, "cpp",
                              "leaderboard", FAST)
    assert result["status"] == "ERROR", result
    assert words in result["reason"] and result["summary"]["ranked"]["passed"] is False


def test_the_ranked_inputs_come_from_the_platforms_seed_alone() -> None:
    """The same seed gives the same inputs on any agent and any job; another seed, other inputs; and
    they share nothing with the per-job secret of the public phases."""
    problem = load_problem("vector-add")
    case = problem.cases("ranked", "host")[0]

    def inputs(seed: int) -> dict[str, np.ndarray]:
        return problem.generate(case, np.random.default_rng(case_seed(ranked_secret(seed), "ranked", 0, "A")))

    same, again, other = inputs(7), inputs(7), inputs(8)
    assert all(np.array_equal(same[k], again[k]) for k in same)
    assert not np.array_equal(same["a"], other["a"])
    assert ranked_secret(7) != ranked_secret(8) and len(ranked_secret(7)) == 32


def test_two_runs_must_agree_bit_for_bit_on_an_exact_problem_and_within_tolerance_otherwise() -> None:
    """Which element differs is the kernel's to choose on secret inputs: the sentence never says."""
    first = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    nudged = first.copy()
    nudged[1] = np.nextafter(np.float32(2.0), np.float32(3.0))
    assert runs_differ("c", first, first.copy(), Tolerance(exact=True)) is None
    assert runs_differ("c", first, nudged, Tolerance(exact=True)) == "the two results are not bit-identical"
    assert runs_differ("c", first, nudged, Tolerance(rtol=1e-6, atol=0.0)) is None
    assert runs_differ("c", first, first + 1, Tolerance(rtol=1e-6, atol=0.0)) == \
        "the two results differ beyond the tolerance"


def test_every_timed_ranked_run_writes_a_whole_set_of_inputs_never_seen_while_the_child_is_paused() -> None:
    """No work carried over from an earlier call can pay in the ranked pass: each timed run gets
    inputs of its own, written inside Caller.timed (the child paused), each verified."""
    from agent.judging.bench import BenchCase
    from agent.judging.phase import buffer_specs

    problem = load_problem("vector-add")
    case = problem.cases("ranked", "host")[0]
    drawn: dict[str, dict[str, np.ndarray]] = {}
    written: list[tuple[str, bytes]] = []

    def inputs(input_set: str) -> dict[str, np.ndarray]:
        small = {"a": np.arange(4, dtype=np.float32) + len(drawn), "b": np.ones(4, dtype=np.float32)}
        drawn[input_set] = small
        return small

    class Access:
        name = "host"

        def __init__(self) -> None:
            self.buffers: dict[str, np.ndarray] = {}
            self.paused = False

        def write(self, name: str, values: np.ndarray) -> None:
            assert self.paused, "inputs written while the child could run"
            written.append((name, values.tobytes()))
            self.buffers[name] = values.copy()

        def read(self, name: str) -> np.ndarray:
            return self.buffers[name].copy()

        def flush_bytes(self) -> int:
            return 0

    class FakeCaller:
        def __init__(self) -> None:
            self.access = Access()

        def timed(self, write: Any) -> Any:
            self.access.paused = True
            write()
            self.access.paused = False
            self.access.buffers["c"] = self.access.buffers["a"] + self.access.buffers["b"]

            class Time:
                ms, event_ms = 1.0, 0.0
            return Time()

        def outputs_now(self) -> dict[str, np.ndarray]:
            return {"c": self.access.buffers["c"].copy()}

    tiny = Case(case.name, case.devices, {"n": 4})
    assert buffer_specs(problem, tiny)
    bench = BenchCase(caller=FakeCaller(), problem=problem, case=tiny, inputs=inputs,  # type: ignore[arg-type]
                      device="host", budget_s=0.0, overhead_ms=None, reveal_values=False)
    payload = bench.run_fresh(np.random.default_rng(0), 5)
    assert sorted(drawn) == [f"run{k}" for k in range(5)] and payload["runs"] == 5
    assert len({data for name, data in written if name == "a"}) == 5  # five sets, none seen twice

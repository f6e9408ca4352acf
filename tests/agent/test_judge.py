"""The judging core end to end on the host device (real g++/hipcc/nvcc, real bubblewrap sandbox),
plus unit tests of the parts a verdict rests on: JobSpec validation, the `solution` precheck, the
comparison, the parent's timing cross-checks and how it reads the child's results, and statistics.
"""

from __future__ import annotations

import copy
import json
import math
import re
import shutil
import statistics
import threading
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agent.compiler import HIP_ARCH_CANDIDATES, CompileRejected, precheck
from agent.harness import Phase
from agent.judge import MAX_SOURCE_BYTES, JobSpec, JobSpecError
from agent.limits import CEILINGS, Limits
from agent.problems import SOURCE_SUFFIX, Case, Problem, Tolerance, parse_definition
from agent.sandbox import Outcome, Sandbox
from agent.seccomp import no_new_processes_filter
from agent.stats import geometric_mean, summarize
from agent.timing_checks import fresh_anomaly, timing_anomaly
from agent.verify import compare
from tests.agent.conftest import PROBLEMS_DIR, load_problem, problem_dirs

SLUGS = [d.name for d in problem_dirs()]
FAST_BENCH = {"case_budget_s": 0.2}

VECTOR_ADD_CPP = (PROBLEMS_DIR / "vector-add" / "solutions" / "cpp.cpp").read_text()
VA_SIGNATURE = "const float* a, const float* b, float* c, size_t n"
VA_BODY = "{ for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }"


def solution_source(slug: str, name: str) -> str:
    return (PROBLEMS_DIR / slug / "solutions" / name).read_text()


def unique(source: str) -> str:
    """The same program with a new compile-cache key."""
    return f"// {uuid.uuid4().hex}\n{source}"


def kinds(events: list[Any]) -> list[str]:
    return [e.kind for e in events]


def statuses(events: list[Any]) -> list[str]:
    return [e.data["status"] for e in events if e.kind == "STATUS"]


# ---- every problem through the real pipeline -----------------------------------------------------

@pytest.mark.integration
@pytest.mark.parametrize("slug", SLUGS)
def test_every_problems_cpp_solution_is_accepted_on_the_host(slug, judge_run_job):
    problem = load_problem(slug)
    result, events = judge_run_job(problem, solution_source(slug, "cpp.cpp"), "cpp", "benchmark", FAST_BENCH)
    assert result["status"] == "ACCEPTED", result
    assert statuses(events) == ["COMPILING", "CHECKING", "BENCHMARKING"]
    summary = result["summary"]

    tests = summary["tests"]
    assert [t["case"] for t in tests] == [c.name for c in problem.cases("test", "host")]
    assert all(t["passed"] and t["message"] is None for t in tests)
    assert kinds(events).count("TEST_RESULT") == len(tests)

    benches = summary["benchmarks"]
    assert [b["case"] for b in benches] == [c.name for c in problem.cases("bench", "host")]
    assert kinds(events).count("BENCHMARK_RESULT") == len(benches)
    for bench, case in zip(benches, problem.cases("bench", "host"), strict=True):
        assert bench["runs"] >= 3
        assert 0 < bench["min_ms"] <= bench["median_ms"] <= bench["max_ms"]
        assert bench["min_ms"] <= bench["mean_ms"] <= bench["max_ms"]
        assert bench["std_ms"] >= 0
        # Every timed call starts from memory: exactly the case's buffers were evicted (clflush).
        assert bench["flush_bytes"] == sum(math.prod(p.shape_for(case.params)) * p.dtype.itemsize
                                           for p in problem.signature if p.pointer)
        for key, count in (("gflops", problem.flop_count(case)), ("gbps", problem.byte_count(case))):
            if count:
                assert bench[key] == pytest.approx(count / (bench["mean_ms"] / 1e3) / 1e9)
            else:
                assert bench[key] is None  # e.g. a transpose does no floating-point work
    score = geometric_mean([b["mean_ms"] for b in benches])
    assert result["score_ms"] == summary["score_ms"] == pytest.approx(score)
    assert f"{score:.4g} ms" in result["reason"]


@pytest.mark.integration
@pytest.mark.parametrize("slug", SLUGS)
def test_every_problems_wrong_solution_gets_wrong_answer_naming_the_first_mismatch(slug, judge_run_job):
    problem = load_problem(slug)
    result, events = judge_run_job(problem, solution_source(slug, "wrong.cpp"), "cpp", "check")
    assert result["status"] == "WRONG_ANSWER", result
    # test '<case>' failed: <output>[<index>] = <got> but expected <want>; k of N elements differ
    match = re.fullmatch(r"test '(.+)' failed: (\w+)\[([\d, ]+)\] = (\S+)( \(never written[^)]*\))? but expected "
                         r"(\S+); (\d+) of (\d+) elements differ \(.+\)", result["reason"])
    assert match, result["reason"]
    assert match.group(2) in {p.name for p in problem.outputs}
    assert match.group(4) != match.group(6)
    failed = [e.data for e in events if e.kind == "TEST_RESULT" and not e.data["passed"]]
    assert len(failed) == 1 and failed[0]["case"] == match.group(1)
    assert events[-2].kind == "TEST_RESULT" and not events[-2].data["passed"]  # it stopped at the first failure


@pytest.mark.integration
@pytest.mark.parametrize("slug", SLUGS)
def test_every_problems_hip_solution_compiles_for_an_amd_target(slug, judge_run_job):
    if not shutil.which("hipcc"):
        pytest.skip("hipcc is not installed (make setup installs Debian's hipcc as root)")
    result, _ = judge_run_job(load_problem(slug), solution_source(slug, "hip.hip"), "hip", "compile")
    assert result["status"] == "COMPILED", result
    assert result["summary"]["arch"] in HIP_ARCH_CANDIDATES
    assert result["summary"]["arch"] in result["reason"]


@pytest.mark.integration
@pytest.mark.parametrize("slug", SLUGS)
def test_every_problems_cuda_solution_compiles_for_sm_80(slug, judge_run_job):
    if not shutil.which("nvcc"):
        pytest.skip("nvcc is not installed on this machine")
    result, _ = judge_run_job(load_problem(slug), solution_source(slug, "cuda.cu"), "cuda", "compile")
    assert result["status"] == "COMPILED", result
    assert result["summary"]["arch"] == "sm_80"


# ---- single jobs on vector-add -------------------------------------------------------------------

@pytest.fixture
def vector_add() -> Problem:
    return load_problem("vector-add")


@pytest.mark.integration
def test_check_mode_runs_the_tests_only(vector_add, judge_run_job):
    result, events = judge_run_job(vector_add, VECTOR_ADD_CPP, "cpp", "check")
    assert result["status"] == "CHECKED" and result["reason"] == "all 4 tests passed", result
    assert statuses(events) == ["COMPILING", "CHECKING"]
    assert "BENCHMARK_RESULT" not in kinds(events) and "benchmarks" not in result["summary"]
    assert result["score_ms"] is None


@pytest.mark.integration
def test_it_reports_a_compile_error_with_the_compiler_message_and_no_sandbox_paths(vector_add, judge_run_job,
                                                                                  judge_config):
    source = f'#include <cstddef>\nextern "C" void solution({VA_SIGNATURE}) {{\n    c[0] = a[0] + ;\n}}\n'
    result, events = judge_run_job(vector_add, source, "cpp", "benchmark")
    assert result["status"] == "COMPILE_ERROR", result
    assert result["reason"].startswith("compilation failed: solution.cpp:3:")
    assert "error" in result["reason"]
    compiled = next(e.data for e in events if e.kind == "COMPILE_RESULT")
    assert compiled["ok"] is False and "solution.cpp:3:" in compiled["output"]
    for leak in ("/box/", str(judge_config.workdir), "/jobs/"):
        assert leak not in compiled["output"] and leak not in result["summary"]["compile_output"]
    assert "CHECKING" not in statuses(events)


@pytest.mark.integration
def test_an_infinite_loop_gets_time_limit_exceeded_within_the_limit_plus_two_seconds(vector_add, judge_run_job):
    spin = "for (volatile int i = 0;; i = i + 1) {}"
    source = f'#include <cstddef>\nextern "C" void solution({VA_SIGNATURE}) {{ {spin} }}\n'
    result, events = judge_run_job(vector_add, unique(source), "cpp", "check", {"check_s": 3})
    assert result["status"] == "TIME_LIMIT_EXCEEDED", result
    assert "3 s limit" in result["reason"] and "case 'n=1'" in result["reason"]
    checking = next(e.at for e in events if e.kind == "STATUS" and e.data["status"] == "CHECKING")
    assert events[-1].at - checking <= 3 + 2


@pytest.mark.integration
def test_a_segfault_is_a_runtime_error_naming_sigsegv(vector_add, judge_run_job):
    source = f'#include <cstddef>\nextern "C" void solution({VA_SIGNATURE}) {{ *(volatile float*)nullptr = c[0]; }}\n'
    result, _ = judge_run_job(vector_add, source, "cpp", "check")
    assert result["status"] == "RUNTIME_ERROR", result
    assert "SIGSEGV" in result["reason"] and "case 'n=1'" in result["reason"]


@pytest.mark.integration
def test_a_solution_may_start_threads(vector_add, judge_run_job):
    # The sandbox refuses new processes, not threads.
    source = f"""#include <cstddef>
#include <thread>
#include <vector>
extern "C" void solution({VA_SIGNATURE}) {{
    std::vector<std::thread> workers;
    for (size_t t = 0; t < 4; ++t)
        workers.emplace_back([=] {{ for (size_t i = t; i < n; i += 4) c[i] = a[i] + b[i]; }});
    for (auto& w : workers) w.join();
}}
"""
    result, _ = judge_run_job(vector_add, source, "cpp", "check")
    assert result["status"] == "CHECKED", result


@pytest.mark.integration
def test_a_second_identical_compile_is_a_cache_hit(vector_add, judge_run_job):
    source = unique(VECTOR_ADD_CPP)
    first, first_events = judge_run_job(vector_add, source, "cpp", "compile")
    second, second_events = judge_run_job(vector_add, source, "cpp", "compile")
    assert first["status"] == second["status"] == "COMPILED"
    assert next(e.data for e in first_events if e.kind == "COMPILE_RESULT")["cached"] is False
    assert next(e.data for e in second_events if e.kind == "COMPILE_RESULT")["cached"] is True
    assert second["summary"]["compile"]["cached"] is True


@pytest.mark.integration
def test_a_hip_benchmark_on_a_host_agent_is_an_error_saying_only_compile_is_possible(vector_add, judge_run_job):
    result, events = judge_run_job(vector_add, solution_source("vector-add", "hip.hip"), "hip", "benchmark")
    assert result["status"] == "ERROR", result
    assert "host device" in result["reason"] and "only mode 'compile'" in result["reason"]
    assert kinds(events) == ["RESULT"]  # refused before compiling


MISDECLARED = {
    "missing": ("#include <cstddef>\nextern \"C\" void solve(const float* a) {}\n", "no `solution` function found"),
    "not_extern_c": (f"#include <cstddef>\nvoid solution({VA_SIGNATURE}) {VA_BODY}\n", 'must be declared extern "C"'),
    "parameter_count": ('#include <cstddef>\nextern "C" void solution(const float* a, const float* b, float* c) {}\n',
                        "takes 3 parameter(s) but the problem declares 4"),
    "double_for_float": ('#include <cstddef>\nextern "C" void solution(const double* a, const float* b, float* c, '
                         "size_t n) {}\n",
                         "parameter 1 is `const double* a` but the problem declares `const float* a`"),
}


@pytest.mark.integration
@pytest.mark.parametrize("case", list(MISDECLARED), ids=list(MISDECLARED))
def test_it_refuses_a_missing_or_misdeclared_solution_without_compiling(case, vector_add, judge_run_job,
                                                                      judge_config, monkeypatch):
    source, reason = MISDECLARED[case]

    def no_spawn(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the compiler was started")

    monkeypatch.setattr(judge_config.sandbox, "spawn", no_spawn)
    result, events = judge_run_job(vector_add, source, "cpp", "benchmark")
    assert result["status"] == "COMPILE_ERROR", result
    assert reason in result["reason"]
    assert vector_add.c_signature() in result["reason"]
    compiled = next(e.data for e in events if e.kind == "COMPILE_RESULT")
    assert compiled == {"ok": False, "output": result["reason"], "cached": False, "seconds": 0.0}


def _with_forbidden(problem: Problem, rules: list[dict[str, Any]]) -> Problem:
    definition = copy.deepcopy(problem.definition)
    definition["forbidden"] = rules
    return parse_definition(definition, problem.reference_source)


@pytest.mark.integration
def test_it_refuses_a_forbidden_pattern_with_the_reason_before_compiling(vector_add, judge_run_job, judge_config,
                                                                        monkeypatch):
    problem = _with_forbidden(vector_add, [
        {"pattern": r"(?i)(hip|roc|cu)blas|\bcblas", "reason": "vendor BLAS is not allowed", "languages": ["cpp"]},
        {"pattern": r"\bhipStreamCreate", "reason": "use the default stream", "languages": ["hip"]},
    ])
    spawned: list[Any] = []
    real_spawn = judge_config.sandbox.spawn
    monkeypatch.setattr(judge_config.sandbox, "spawn", lambda *a, **k: spawned.append(a) or real_spawn(*a, **k))

    refused, _ = judge_run_job(problem, "#include <cblas.h>\n" + VECTOR_ADD_CPP, "cpp", "check")
    assert refused["status"] == "COMPILE_ERROR" and refused["reason"] == "forbidden: vendor BLAS is not allowed"
    assert spawned == []
    # Only code counts, not comments; and a rule applies to its languages only.
    commented, _ = judge_run_job(problem, "// no cblas here\n/* hipStreamCreate */\n" + VECTOR_ADD_CPP, "cpp", "check")
    other_language, _ = judge_run_job(problem, "static void f() { hipStreamCreate(0); }\n" + VECTOR_ADD_CPP,
                                      "cpp", "compile")
    assert commented["status"] == "CHECKED", commented
    assert other_language["status"] == "COMPILE_ERROR" and "forbidden" not in other_language["reason"]


# Cheats the catalogue's forbidden rules are meant to stop, spelled as code.
FORBIDDEN_PROBES = {
    "hip": ["#include <hipblas/hipblas.h>", "#include <rocblas/rocblas.h>",
            "static void probe() { hipStream_t s; hipStreamCreate(&s); }"],
    "cuda": ["#include <cublas_v2.h>", "static void probe() { cudaStream_t s; cudaStreamCreate(&s); }"],
    "cpp": ["#include <cblas.h>", "#include <Eigen/Dense>"],
}


@pytest.mark.integration
@pytest.mark.parametrize("slug", SLUGS)
def test_the_catalogues_forbidden_patterns_refuse_their_cheats(slug, judge_run_job):
    problem = load_problem(slug)
    hits = [(language, probe) for language, probes in FORBIDDEN_PROBES.items() for probe in probes
            if any(language in rule.languages and rule.search(probe) for rule in problem.forbidden)]
    if not hits:
        pytest.skip(f"no forbidden rule of {slug} matches a known cheat")
    for language, probe in hits:
        solution = solution_source(slug, f"{language}{SOURCE_SUFFIX[language]}")
        result, _ = judge_run_job(problem, probe + "\n" + solution, language, "compile")
        assert result["status"] == "COMPILE_ERROR", (probe, result)
        first = next(r for r in problem.forbidden if language in r.languages and r.search(probe))
        assert result["reason"] == f"forbidden: {first.reason}"


def test_matmul_forbids_vendor_blas():
    if not (PROBLEMS_DIR / "matmul-fp32").is_dir():
        pytest.skip("the matmul-fp32 problem does not exist yet")
    problem = load_problem("matmul-fp32")
    for language, include in (("hip", "#include <hipblas/hipblas.h>"), ("cuda", "#include <cublas_v2.h>"),
                              ("hip", "#include <rocblas/rocblas.h>")):
        with pytest.raises(CompileRejected, match="^forbidden: "):
            source = solution_source("matmul-fp32", language + SOURCE_SUFFIX[language])
            precheck(problem, language, f"{include}\n{source}")


# ---- JobSpec validation --------------------------------------------------------------------------

def _body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"id": "job-1", "problem": load_problem("vector-add").to_bundle(), "language": "cpp",
                            "source": VECTOR_ADD_CPP, "mode": "benchmark"}
    body.update(changes)
    return {k: v for k, v in body.items() if v is not None}


def _bad_hash() -> dict[str, Any]:
    bundle = load_problem("vector-add").to_bundle()
    return {**bundle, "hash": "0" * 64}


INVALID_REQUESTS = {
    "missing_id": (lambda: _body(id=None), "id:"),
    "empty_id": (lambda: _body(id="  "), "id:"),
    "bad_language": (lambda: _body(language="fortran"), "language:"),
    "source_over_64_kib": (lambda: _body(source="x" * (MAX_SOURCE_BYTES + 1)), "source:"),
    "nul_in_source": (lambda: _body(source=VECTOR_ADD_CPP + "\0"), "source:"),
    "empty_source": (lambda: _body(source="   "), "source:"),
    "bad_mode": (lambda: _body(mode="profile"), "mode:"),
    "bad_limits_key": (lambda: _body(limits={"gpus": 2}), "limits.gpus:"),
    "negative_limit": (lambda: _body(limits={"check_s": -1}), "limits.check_s:"),
    "limits_not_an_object": (lambda: _body(limits=[1]), "limits:"),
    "bad_problem_hash": (lambda: _body(problem=_bad_hash()), "problem: problem.hash:"),
    "missing_problem": (lambda: _body(problem=None), "problem:"),
    "boolean_seed": (lambda: _body(seed=True), "seed:"),
}


@pytest.mark.parametrize("case", list(INVALID_REQUESTS), ids=list(INVALID_REQUESTS))
def test_jobspec_validation_names_the_bad_field(case):
    build, prefix = INVALID_REQUESTS[case]
    with pytest.raises(JobSpecError) as info:
        JobSpec.from_request(build())
    assert str(info.value).startswith(prefix), str(info.value)


def test_jobspec_accepts_a_valid_request_and_clamps_limits_to_the_ceilings():
    spec = JobSpec.from_request(_body(limits={"check_s": 10_000, "nproc": 8}, seed=7))
    assert spec.id == "job-1" and spec.language == "cpp" and spec.mode == "benchmark" and spec.seed == 7
    assert spec.limits.check_s == CEILINGS["check_s"] and spec.limits.nproc == 8
    assert spec.limits.benchmark_s == Limits().benchmark_s
    with pytest.raises(JobSpecError, match="^body:"):
        JobSpec.from_request(["not", "an", "object"])


# ---- the precheck --------------------------------------------------------------------------------

ACCEPTED_DECLARATIONS = {
    "plain": f'extern "C" void solution({VA_SIGNATURE}) {VA_BODY}',
    "array_parameters": 'extern "C" void solution(const float a[], const float b[], float c[], size_t n) {}',
    "restrict": 'extern "C" void solution(const float* __restrict__ a, const float* __restrict__ b, '
                "float* __restrict__ c, size_t n) {}",
    "std_size_t": 'extern "C" void solution(const float* a, const float* b, float* c, std::size_t n) {}',
    "spelled_differently": 'extern "C" void solution(const float *a, const float *b, float *c, unsigned long n) {}',
    "unnamed": 'extern "C" void solution(const float*, const float*, float*, size_t) {}',
    "unnamed_two_words": 'extern "C" void solution(const float*, const float*, float*, unsigned long) {}',
    "extern_c_block": f'extern "C" {{\nvoid solution({VA_SIGNATURE}) {VA_BODY}\n}}',
    "declared_then_defined": f'extern "C" void solution({VA_SIGNATURE});\nvoid solution({VA_SIGNATURE}) {VA_BODY}',
    "fake_declaration_in_comments": (f'// extern "C" void solution(int x)\nextern "C" void solution({VA_SIGNATURE})'
                                     f' {VA_BODY}\n/* void solution(double* x) */\n// void solution(int y)'),
    "multiline": 'extern "C"\nvoid solution(\n  const float* a,\n  const float* b,\n  float* c,\n  size_t n)\n{}',
}

REFUSED_DECLARATIONS = {
    "only_in_a_comment": (f'// extern "C" void solution({VA_SIGNATURE}) {{}}\n', "no `solution` function found"),
    "missing_extern_c": (f"void solution({VA_SIGNATURE}) {VA_BODY}", 'must be declared extern "C"'),
    "too_many_parameters": ('extern "C" void solution(const float* a, const float* b, float* c, size_t n, int k) {}',
                            "takes 5 parameter(s)"),
    "no_parameters": ('extern "C" void solution(void) {}', "takes 0 parameter(s)"),
    "double_pointer": ('extern "C" void solution(const double* a, const float* b, float* c, size_t n) {}',
                       "parameter 1 is `const double* a`"),
    "scalar_for_pointer": ('extern "C" void solution(const float* a, const float* b, float c, size_t n) {}',
                           "parameter 3 is `float c`"),
    "pointer_for_scalar": ('extern "C" void solution(const float* a, const float* b, float* c, size_t* n) {}',
                           "parameter 4 is `size_t* n`"),
    "pointer_to_pointer": ('extern "C" void solution(const float* a, const float* b, float** c, size_t n) {}',
                           "parameter 3 is `float** c`"),
    "reference": ('extern "C" void solution(const float* a, const float* b, float* c, size_t& n) {}',
                  "parameter 4 is `size_t& n`"),
    "int_for_size_t": ('extern "C" void solution(const float* a, const float* b, float* c, int n) {}',
                       "parameter 4 is `int n`"),
    "a_kernel": (f'extern "C" __global__ void solution({VA_SIGNATURE}) {{}}', "must be a host function"),
}


@pytest.mark.parametrize("name", list(ACCEPTED_DECLARATIONS), ids=list(ACCEPTED_DECLARATIONS))
def test_precheck_accepts_equivalent_declarations(name, vector_add):
    precheck(vector_add, "cpp", "#include <cstddef>\n" + ACCEPTED_DECLARATIONS[name])


@pytest.mark.parametrize("name", list(REFUSED_DECLARATIONS), ids=list(REFUSED_DECLARATIONS))
def test_precheck_refuses_a_wrong_declaration_with_the_expected_signature(name, vector_add):
    source, reason = REFUSED_DECLARATIONS[name]
    with pytest.raises(CompileRejected) as info:
        precheck(vector_add, "hip", "#include <cstddef>\n" + source)
    assert reason in str(info.value)
    if "no `solution`" in reason or "extern" in reason or "parameter" in reason:
        assert vector_add.c_signature() in str(info.value)


# ---- compare -------------------------------------------------------------------------------------

FLOAT_TOL = Tolerance(rtol=1e-4, atol=1e-6)


def test_compare_accepts_values_within_tolerance():
    want = np.array([1.0, -2.0, 3.0], dtype=np.float32)
    assert compare("c", want * np.float32(1 + 1e-5), want, FLOAT_TOL) is None
    assert compare("c", want.copy(), want, Tolerance(exact=True)) is None


def test_compare_names_the_first_mismatch_with_index_got_expected_and_count():
    want = np.arange(10, dtype=np.float32)
    got = want.copy()
    got[3], got[7] = 99.0, -1.0
    assert compare("c", got, want, FLOAT_TOL) == ("c[3] = 99 but expected 3; 2 of 10 elements differ "
                                                 "(rtol 0.0001, atol 1e-06)")


def test_compare_gives_a_multi_dimensional_index():
    want = np.zeros((3, 4), dtype=np.float32)
    got = want.copy()
    got[2, 1] = 0.5
    assert compare("out", got, want, FLOAT_TOL).startswith("out[2, 1] = 0.5 but expected 0;")


def test_compare_says_when_an_element_still_holds_the_nan_poison():
    want = np.ones(4, dtype=np.float32)
    got = want.copy()
    got[1:] = np.nan
    message = compare("c", got, want, FLOAT_TOL)
    assert message == ("c[1] = nan (never written: it still holds the poison value) but expected 1; "
                       "3 of 4 elements differ (rtol 0.0001, atol 1e-06)")


def test_compare_refuses_inf_and_nan_where_numbers_are_expected():
    want = np.ones(3, dtype=np.float32)
    assert compare("c", np.array([1, np.inf, 1], dtype=np.float32), want, FLOAT_TOL).startswith("c[1] = inf")
    assert compare("c", np.array([1, 1, -np.inf], dtype=np.float32), want, FLOAT_TOL).startswith("c[2] = -inf")


def test_compare_reports_a_shape_mismatch():
    want = np.zeros((4, 3), dtype=np.float32)
    assert compare("out", np.zeros((3, 4), dtype=np.float32), want, FLOAT_TOL) == \
        "out has shape (3, 4), expected (4, 3)"


def test_compare_checks_integers_exactly_whatever_the_tolerance():
    want = np.array([10, 20, 30], dtype=np.int32)
    got = np.array([10, 21, 30], dtype=np.int32)
    loose = Tolerance(rtol=0.5, atol=5)
    assert compare("hist", got, want, loose) == \
        "hist[1] = 21 but expected 20; 1 of 3 elements differ (exact comparison)"
    poisoned = np.frombuffer(b"\xa5" * 12, dtype=np.int32).copy()
    assert "(never written: it still holds the poison value)" in compare("hist", poisoned, want, loose)


def test_compare_exact_floats_allow_no_rounding():
    want = np.array([1.0, 2.0], dtype=np.float32)
    got = np.nextafter(want, np.float32(3))
    # 7 digits would print "1 but expected 1": an exact check shows every digit instead.
    assert compare("out", got, want, Tolerance(exact=True)).startswith(
        "out[0] = 1.0000001192092896 but expected 1.0; 2 of 2 elements differ")


# ---- the parent's side of a phase, fed crafted result lines --------------------------------------

TINY = Case("tiny", ("host", "gpu"), {"n": 5})
SMALL = Case("small", ("host", "gpu"), {"n": 7})


def make_phase(tmp_path: Path, *, kind: str = "bench", device: str = "host",
               cases: tuple[Case, ...] = (TINY,)) -> tuple[Phase, list[tuple[str, Any]]]:
    emitted: list[tuple[str, Any]] = []
    phase = Phase(kind=kind, problem=load_problem("vector-add"), cases=list(cases), device=device, sandbox=Sandbox(),
                  box=tmp_path / "box", limits=Limits(), secret=b"k" * 48,
                  emit=lambda kind, data: emitted.append((kind, data)), cancel=threading.Event())
    return phase, emitted


def feed(phase: Phase, *lines: Any, raw: bytes = b"") -> bool:
    with (phase.box / "results.jsonl").open("ab") as fh:
        for line in lines:
            fh.write(json.dumps(line).encode() + b"\n")
        fh.write(raw)
    return phase._follow()


def write_output(phase: Phase, input_set: str, *, offset: float = 0.0, index: int = 0,
                 inputs: dict[str, np.ndarray] | None = None, suffix: str = "") -> None:
    expected = phase.problem.expected(phase.cases[index], inputs or phase._inputs(index, input_set))["c"]
    np.save(phase.box / f"{phase.kind}{index}" / input_set / f"out_c{suffix}.npy", expected + np.float32(offset))
    if input_set == "B" and not suffix:
        # The second fresh set is right; done() keeps timed run 0 with changes that leave the
        # inputs as they were.
        write_output(phase, "C", index=index)
        write_output(phase, "A", index=index, suffix="_run0")


IDENTITY = (list(range(5)) * 13)[:64]  # 64 positions of a 5-element buffer, each copied onto itself


def kept(run: int = 0, a: list[list[int]] | None = None) -> dict[str, Any]:
    return {"run": run, "mutations": {"a": a or [IDENTITY, IDENTITY], "b": [IDENTITY, IDENTITY]}}


def done(**fields: Any) -> dict[str, Any]:
    return {"event": "done", "index": 0, "times_ms": [1.0, 1.1, 0.9], "walls_ms": [1.05, 1.15, 0.95],
            "fresh_ms": [1.0, 1.2], "fresh_walls_ms": [1.05, 1.25], "inputs_modified": [], "verified": [kept()],
            **fields}


def test_the_parent_verifies_the_fresh_input_rerun_and_reports_the_stats(tmp_path):
    phase, emitted = make_phase(tmp_path)
    phase._write_spec()
    assert (phase.box / "bench0" / "A" / "in_a.npy").is_file() and (phase.box / "bench0" / "B" / "in_a.npy").is_file()
    write_output(phase, "B")
    assert feed(phase, {"event": "start", "index": 0}, done()) is False
    assert phase.result.status is None
    kind, payload = emitted[-1]
    assert kind == "BENCHMARK_RESULT" and payload["runs"] == 3 and payload["mean_ms"] == pytest.approx(1.0)
    assert payload["gflops"] == pytest.approx(5 / 1e-3 / 1e9)


def test_the_parent_catches_a_wrong_result_on_fresh_inputs(tmp_path):
    phase, _ = make_phase(tmp_path)
    phase._write_spec()
    write_output(phase, "A")  # right for the inputs of the timed runs only
    write_output(phase, "B", offset=1.0)
    assert feed(phase, done()) is True
    assert phase.result.status == "WRONG_ANSWER"
    assert "a timed run on fresh inputs gave a wrong result" in phase.result.reason
    assert "c[0] = " in phase.result.reason


def test_the_parent_refuses_modified_inputs_and_unreadable_outputs(tmp_path):
    phase, _ = make_phase(tmp_path)
    phase._write_spec()
    write_output(phase, "B")
    feed(phase, done(inputs_modified=["a"]))
    assert phase.result.status == "WRONG_ANSWER" and "solution modified its input a" in phase.result.reason

    phase, _ = make_phase(tmp_path / "second")
    phase._write_spec()  # no output file at all
    feed(phase, done())
    assert phase.result.status == "WRONG_ANSWER" and "output c could not be read back" in phase.result.reason


def test_the_parent_fails_a_benchmark_whose_times_exceed_its_wall_clock(tmp_path):
    phase, emitted = make_phase(tmp_path)
    phase._write_spec()
    write_output(phase, "B")
    feed(phase, done(times_ms=[5.0, 5.0, 5.0], walls_ms=[1.0, 1.0, 1.0]))
    assert phase.result.status == "RUNTIME_ERROR"
    assert phase.result.reason.startswith("benchmark 'tiny': timing cross-check failed: a call timed at 5.0000 ms")
    assert "BENCHMARK_RESULT" not in [k for k, _ in emitted]


def test_the_parent_catches_a_wrong_result_on_a_kept_timed_run(tmp_path):
    phase, _ = make_phase(tmp_path)
    phase._write_spec()
    write_output(phase, "B")
    write_output(phase, "A", suffix="_run0", offset=1.0)  # a stale or skipped timed run
    assert feed(phase, done()) is True
    assert phase.result.status == "WRONG_ANSWER"
    assert "a timed run on changed inputs gave a wrong result" in phase.result.reason
    assert "run 1: c[0] = " in phase.result.reason


def test_the_parent_replays_the_changes_of_a_kept_run_before_verifying_it(tmp_path):
    phase, emitted = make_phase(tmp_path)
    phase._write_spec()
    write_output(phase, "B")
    targets, sources = [0] * 64, [4] * 64  # a[0] = a[4]
    changed = phase._inputs(0, "A")
    changed["a"][0] = changed["a"][4]
    write_output(phase, "A", suffix="_run2", inputs=changed)
    feed(phase, done(verified=[kept(2, a=[targets, sources])]))
    assert phase.result.status is None and emitted[-1][0] == "BENCHMARK_RESULT"

    phase, _ = make_phase(tmp_path / "unchanged")
    phase._write_spec()
    write_output(phase, "B")
    write_output(phase, "A", suffix="_run2")  # computed on the unchanged inputs: stale
    feed(phase, done(verified=[kept(2, a=[targets, sources])]))
    assert phase.result.status == "WRONG_ANSWER" and "run 3: c[0] = " in phase.result.reason


@pytest.mark.parametrize("verified", [[], [kept(run=3)], [kept(a=[[0], [1]])], [{"run": 0}], None])
def test_forged_or_malformed_verification_records_are_refused(verified, tmp_path):
    phase, _ = make_phase(tmp_path)
    phase._write_spec()
    write_output(phase, "B")
    feed(phase, done(verified=verified))
    assert phase.result.status == "WRONG_ANSWER"
    assert "verification" in phase.result.reason


def test_a_time_beyond_what_any_device_can_do_is_refused(tmp_path):
    big = Case("big", ("host", "gpu"), {"n": 1 << 20})
    phase, emitted = make_phase(tmp_path, cases=(big,))
    phase._write_spec()
    write_output(phase, "B")
    identity = list(range(64))
    feed(phase, done(times_ms=[0.001] * 3, walls_ms=[0.002] * 3, fresh_ms=[0.001] * 2, fresh_walls_ms=[0.002] * 2,
                     verified=[{"run": 0, "mutations": {"a": [identity, identity], "b": [identity, identity]}}]))
    assert phase.result.status == "RUNTIME_ERROR"
    assert "beyond any host device" in phase.result.reason
    assert "BENCHMARK_RESULT" not in [k for k, _ in emitted]


def test_the_parent_skips_garbled_partial_and_foreign_lines(tmp_path):
    phase, emitted = make_phase(tmp_path)
    phase._write_spec()
    write_output(phase, "B")
    feed(phase, raw=b"not json\n[1, 2]\n")
    feed(phase, {"event": "done", "index": 7}, {"event": "done", "index": "0"}, {"event": "start", "index": -1})
    assert phase.result.status is None and emitted == []
    line = json.dumps(done()).encode()
    feed(phase, raw=line[:20])  # half a line is not read yet
    assert emitted == []
    feed(phase, raw=line[20:] + b"\n")
    assert [k for k, _ in emitted] == ["BENCHMARK_RESULT"]
    feed(phase, done(times_ms=[9.0, 9.0, 9.0]))  # a second "done" for a finished case counts for nothing
    assert phase.result.status is None and len(emitted) == 1


def test_the_parent_stops_at_the_first_failure_even_when_later_results_are_already_there(tmp_path):
    phase, emitted = make_phase(tmp_path, kind="test", cases=(TINY, SMALL))
    phase._write_spec()
    write_output(phase, "A", index=0, offset=1.0)
    write_output(phase, "A", index=1, offset=1.0)
    feed(phase, {"event": "start", "index": 0}, done(index=0), {"event": "start", "index": 1}, done(index=1),
         {"event": "finished"})
    assert phase._follow() is True  # what the parent reads once more after the child ended
    assert phase.result.status == "WRONG_ANSWER" and phase.result.reason.startswith("test 'tiny' failed: c[0] = ")
    assert [(kind, data["case"], data["passed"]) for kind, data in emitted] == [("TEST_RESULT", "tiny", False)]
    assert len(phase.result.cases) == 1


def test_a_fatal_line_is_a_runtime_error_with_its_message(tmp_path):
    phase, _ = make_phase(tmp_path, kind="test")
    phase._write_spec()
    assert feed(phase, {"event": "fatal", "error": "cannot load the solution: undefined symbol: solution"})
    assert phase.result.status == "RUNTIME_ERROR"
    assert phase.result.reason == "cannot load the solution: undefined symbol: solution"


MALFORMED_TIMINGS = {
    "not_lists": ("1.0", [1.0, 1.0, 1.0]),
    "lengths_differ": ([1.0, 1.0, 1.0], [1.0, 1.0]),
    "too_few_runs": ([1.0, 1.0], [1.0, 1.0]),
    "negative": ([1.0, -1.0, 1.0], [1.0, 1.0, 1.0]),
    "not_numbers": ([1.0, "fast", 1.0], [1.0, 1.0, 1.0]),
}


@pytest.mark.parametrize("name", list(MALFORMED_TIMINGS), ids=list(MALFORMED_TIMINGS))
def test_timing_cross_check_refuses_malformed_timings(name, tmp_path):
    phase, _ = make_phase(tmp_path)
    times, walls = MALFORMED_TIMINGS[name]
    assert timing_anomaly(phase.device, times, walls) == "the harness reported malformed timings"


def test_timing_cross_check_refuses_a_call_timed_longer_than_its_wall_clock(tmp_path):
    phase, _ = make_phase(tmp_path)
    assert timing_anomaly(phase.device, [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]) is None
    assert timing_anomaly(phase.device, [1.0, 1.1, 1.0], [1.0, 1.0, 1.0]) is None  # 5 % + 0.05 ms slack
    assert timing_anomaly(phase.device, [1.0, 1.2, 1.0], [1.0, 1.0, 1.0]) == \
        "a call timed at 1.2000 ms took only 1.0000 ms of wall clock"


def test_timing_cross_check_refuses_gpu_events_that_miss_most_of_the_call(tmp_path):
    gpu, _ = make_phase(tmp_path, device="hip")
    host, _ = make_phase(tmp_path, device="host")
    hidden = ([0.1, 0.1, 0.1], [5.0, 5.0, 5.0])  # work on a side stream or a thread the events did not see
    assert "all work must run on the default stream" in timing_anomaly(gpu.device, *hidden)
    assert timing_anomaly(host.device, *hidden) is None  # the host's "events" are the wall clock
    assert timing_anomaly(gpu.device, [0.05, 0.05, 0.05], [0.2, 0.2, 0.2]) is None  # launch overhead of a tiny kernel
    assert timing_anomaly(gpu.device, [3.0, 3.0, 3.0], [5.0, 5.0, 5.0]) is None


def test_calls_on_fresh_inputs_much_slower_than_the_timed_runs_are_refused():
    runs = [1.0, 1.1, 0.9]
    assert fresh_anomaly(runs, [1.0, 1.2], [1.05, 1.25], 2) is None
    assert fresh_anomaly(runs, [9.0, 1.2], [9.05, 1.25], 2) is None  # one preempted call is no verdict
    assert fresh_anomaly(runs, [3.04, 3.04], [3.1, 3.1], 2) is None  # within 3x the median + 0.05 ms
    slow = fresh_anomaly(runs, [9.0, 8.0], [9.05, 8.05], 2)
    assert slow == ("calls on fresh inputs took 9.0000 and 8.0000 ms but calls on slightly changed inputs "
                    "1.0000 ms (median): the work must not be carried over from earlier calls")


@pytest.mark.parametrize("fresh, walls", [(None, [1.0, 1.0]), ([1.0], [1.0]), ([1.0, -1.0], [1.0, 1.0]),
                                          ([1.0, "x"], [1.0, 1.0]), ([1.0, 1.0], [1.0])])
def test_malformed_fresh_timings_are_refused(fresh, walls):
    assert fresh_anomaly([1.0, 1.0, 1.0], fresh, walls, 2) == \
        "the harness reported malformed timings of the calls on fresh inputs"


def test_a_fresh_call_timed_longer_than_its_wall_clock_is_refused():
    assert fresh_anomaly([1.0, 1.0, 1.0], [1.0, 2.0], [1.0, 1.0], 2) == \
        "a call timed at 2.0000 ms took only 1.0000 ms of wall clock"


def test_total_wall_cross_check_refuses_more_reported_time_than_elapsed(tmp_path):
    phase, _ = make_phase(tmp_path)
    phase._wall_ms_reported = 3000.0
    phase._check_total_wall(Outcome(0, None, False, False, wall_s=2.6, output=""))
    assert phase.result.status is None
    phase._check_total_wall(Outcome(0, None, False, False, wall_s=1.0, output=""))
    assert phase.result.status == "RUNTIME_ERROR" and "exceed the real elapsed time" in phase.result.reason


ENDINGS = {
    "timed_out": (Outcome(None, 9, True, False, 3.0, ""), "TIME_LIMIT_EXCEEDED", "within the 3 s limit in case 'tiny'"),
    "cancelled": (Outcome(None, 9, False, True, 1.0, ""), "CANCELLED", "cancelled"),
    "segfault": (Outcome(139, 11, False, False, 1.0, ""), "RUNTIME_ERROR", "SIGSEGV"),
    "killed": (Outcome(-9, 9, False, False, 1.0, ""), "RUNTIME_ERROR", "SIGKILL"),
    "exit_zero": (Outcome(0, None, False, False, 1.0, ""), "RUNTIME_ERROR", "before solution() returned"),
    "exit_code": (Outcome(5, None, False, False, 1.0, ""), "RUNTIME_ERROR", "exited with code 5 in case 'tiny'"),
}


@pytest.mark.parametrize("name", list(ENDINGS), ids=list(ENDINGS))
def test_an_early_end_of_the_child_is_classified(name, tmp_path):
    phase, _ = make_phase(tmp_path, kind="test")
    phase._current = 0
    outcome, status, reason = ENDINGS[name]
    phase._classify_end(outcome, 3.0)
    assert phase.result.status == status and reason in phase.result.reason, phase.result.reason


# ---- statistics ----------------------------------------------------------------------------------

def test_summarize_reports_runs_mean_median_spread_and_throughput():
    stats = summarize([1.0, 2.0, 3.0, 4.0], flops=2e6, nbytes=4e6)
    assert (stats.runs, stats.mean_ms, stats.median_ms, stats.min_ms, stats.max_ms) == (4, 2.5, 2.5, 1.0, 4.0)
    assert stats.std_ms == pytest.approx(statistics.stdev([1, 2, 3, 4]))
    assert stats.rel_stderr == pytest.approx(stats.std_ms / 2 / 2.5)
    assert stats.gflops == pytest.approx(0.8) and stats.gbps == pytest.approx(1.6)
    assert set(stats.as_dict()) >= {"runs", "mean_ms", "median_ms", "std_ms", "min_ms", "max_ms", "gflops", "gbps"}


def test_summarize_handles_one_run_no_flops_and_no_runs():
    one = summarize([2.0], flops=0, nbytes=8e6)
    assert one.std_ms == 0.0 and one.rel_stderr == 0.0 and one.gflops is None and one.gbps == pytest.approx(4.0)
    with pytest.raises(ValueError):
        summarize([], flops=1, nbytes=1)


def test_geometric_mean_is_the_score_and_needs_positive_times():
    assert geometric_mean([1.0, 4.0]) == pytest.approx(2.0)
    assert geometric_mean([2.0, 8.0, 4.0]) == pytest.approx(4.0)
    assert geometric_mean([0.5]) == pytest.approx(0.5)
    assert geometric_mean([1e-3, 1e3]) == pytest.approx(1.0)
    for bad in ([], [1.0, 0.0], [-1.0, 2.0]):
        with pytest.raises(ValueError):
            geometric_mean(bad)
    assert not math.isnan(geometric_mean([1e-9] * 100))


# ---- the sandbox's process filter ----------------------------------------------------------------

def test_the_no_new_processes_filter_is_a_whole_bpf_program_for_known_machines():
    for machine in ("x86_64", "aarch64"):
        program = no_new_processes_filter(machine)
        assert program is not None and len(program) % 8 == 0 and 8 * 8 <= len(program) <= 32 * 8
    assert no_new_processes_filter("riscv64") is None  # unknown: rely on RLIMIT_NPROC alone

"""The judging core end to end on the host device (real g++/hipcc/nvcc, real bubblewrap sandbox).
The parts a verdict rests on have their own tests: JobSpec validation and the `solution` precheck
(test_jobspec.py), the comparison and statistics (test_compare_and_stats.py), the harness's own
parts (channel, shared memory, guard zones, timing bounds: test_harness.py).
"""

from __future__ import annotations

import copy
import math
import re
import shutil
import uuid
from typing import Any

import pytest

from agent.judging.compiler import HIP_ARCH_CANDIDATES
from agent.judging.precheck import precheck
from agent.judging.stats import geometric_mean
from agent.problems.bundle import SOURCE_SUFFIX, Problem, parse_definition
from agent.sandbox.toolchain import CompileRejected
from tests.agent.conftest import PROBLEMS_DIR, load_problem, problem_dirs
from tests.agent.test_jobspec import VA_BODY, VA_SIGNATURE, VECTOR_ADD_CPP

SLUGS = [d.name for d in problem_dirs()]
FAST_BENCH = {"case_budget_s": 0.2}



def solution_source(slug: str, name: str) -> str:
    return (PROBLEMS_DIR / slug / "solutions" / name).read_text()


def unique(source: str) -> str:
    """The same program with a new compile-cache key."""
    return f"// {uuid.uuid4().hex}\n{source}"


def kinds(events: list[Any]) -> list[str]:
    return [e.kind for e in events]


def statuses(events: list[Any]) -> list[str]:
    return [e.data["status"] for e in events if e.kind == "STATUS"]


# ---- a problem's own solutions through the real pipeline -------------------------------------------
# Every problem's are judged by `manage.py problem check` (tests/submissions/test_problem_check.py):
# its verdicts only. What a result says beyond its verdict is checked here, on vector-add.

@pytest.mark.integration
def test_a_cpp_solution_is_accepted_on_the_host_with_every_benchmark_field(judge_run_job):
    slug = "vector-add"
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
@pytest.mark.parametrize("slug", ["vector-add", "gemm-bf16"])
def test_a_wrong_solution_gets_wrong_answer_naming_the_first_mismatch(slug, judge_run_job):
    problem = load_problem(slug)
    result, events = judge_run_job(problem, solution_source(slug, "wrong.cpp"), "cpp", "check")
    assert result["status"] == "WRONG_ANSWER", result
    # test '<case>' failed: <output>[<index>] = <got> but expected <want>[: |got - expected| = e > bound b = ...];
    # k of N elements differ[ (rule)]. To reproduce it with the same inputs: python -m agent run ... --seed S ...
    match = re.fullmatch(r"test '(.+)' failed: (\w+)\[([\d, ]+)\] = (\S+)( \(never written[^)]*\))? but expected "
                         r"([^\s:;]+)(?:: \|got - expected\| = \S+ > bound \S+ = [^;]+)?; (\d+) of (\d+) elements "
                         rf"differ(?: \(.+\))?\. To reproduce it with the same inputs: python -m agent run "
                         rf"--problem {slug} --mode check --seed \d+ YOUR_FILE", result["reason"])
    assert match, result["reason"]
    assert match.group(2) in {p.name for p in problem.outputs}
    assert match.group(4) != match.group(6)
    failed = [e.data for e in events if e.kind == "TEST_RESULT" and not e.data["passed"]]
    assert len(failed) == 1
    assert failed[0]["case"] == match.group(1)
    assert events[-2].kind == "TEST_RESULT"
    assert not events[-2].data["passed"]


# Every problem's hip and cuda solution compiles in tests/agent/test_problem_catalogue.py, all in one
# translation unit per language (a compile through the judge each was 2 s of CPU, mostly headers).
@pytest.mark.integration
def test_a_hip_solution_compiles_through_the_judge_for_an_amd_target(judge_run_job):
    if not shutil.which("hipcc"):
        pytest.skip("hipcc is not installed (make setup installs Debian's hipcc as root)")
    slug = "matmul-fp32"  # the problem with the strictest rules (no vendor BLAS, in the source or linked)
    result, _ = judge_run_job(load_problem(slug), solution_source(slug, "hip.hip"), "hip", "compile")
    assert result["status"] == "COMPILED", result
    assert result["summary"]["arch"] in HIP_ARCH_CANDIDATES
    assert result["summary"]["arch"] in result["reason"]


@pytest.mark.integration
def test_a_bf16_and_fp8_hip_solution_compiles_through_the_judge_on_a_hipcc_without_rocm6_headers(judge_run_job):
    # "Compile only" on the local pool: Debian's hipcc has no hip/hip_bf16.h nor hip/hip_fp8.h; the
    # judge's stand-ins (agent/include/hip-compat) fill in, inside the compiler's sandbox.
    if not shutil.which("hipcc"):
        pytest.skip("hipcc is not installed (make setup installs Debian's hipcc as root)")
    slug = "fp8-quant-blockwise"  # includes both headers
    result, _ = judge_run_job(load_problem(slug), solution_source(slug, "hip.hip"), "hip", "compile")
    assert result["status"] == "COMPILED", result
    assert result["summary"]["arch"] in result["reason"]


@pytest.mark.integration
def test_a_cuda_solution_compiles_through_the_judge_for_sm_80(judge_run_job):
    if not shutil.which("nvcc"):
        pytest.skip("nvcc is not installed on this machine")
    slug = "matmul-fp32"
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
    assert result["status"] == "CHECKED", result
    assert result["reason"] == "all 4 tests passed", result
    assert statuses(events) == ["COMPILING", "CHECKING"]
    assert "BENCHMARK_RESULT" not in kinds(events)
    assert "benchmarks" not in result["summary"]
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
    assert compiled["ok"] is False
    assert "solution.cpp:3:" in compiled["output"]
    for leak in ("/box/", str(judge_config.workdir), "/jobs/"):
        assert leak not in compiled["output"]
        assert leak not in result["summary"]["compile_output"]
    assert "CHECKING" not in statuses(events)


@pytest.mark.integration
def test_an_infinite_loop_gets_time_limit_exceeded_naming_the_limit_and_the_case(vector_add, judge_run_job):
    spin = "for (volatile int i = 0;; i = i + 1) {}"
    source = f'#include <cstddef>\nextern "C" void solution({VA_SIGNATURE}) {{ {spin} }}\n'
    result, events = judge_run_job(vector_add, unique(source), "cpp", "check", {"check_s": 3})
    assert result["status"] == "TIME_LIMIT_EXCEEDED", result
    assert "3 s limit" in result["reason"]
    assert "case 'n=1'" in result["reason"]


@pytest.mark.integration
def test_the_agents_limit_for_one_job_ends_a_phase_whatever_its_own_limit(vector_add, judge_run_job, monkeypatch):
    """jobs.MAX_JOB_SECONDS (2 h) reaches every phase's watchdog as the job's deadline."""
    # Long enough for the compile on a loaded machine (it counts too), short for a test: the kernel
    # waits forever, and the job's limit must end it.
    monkeypatch.setattr("agent.judging.judge.MAX_JOB_SECONDS", 10.0)
    source = (f'#include <cstddef>\n#include <unistd.h>\nextern "C" void solution({VA_SIGNATURE}) '
              "{ for (;;) pause(); }\n")
    result, _ = judge_run_job(vector_add, unique(source), "cpp", "check", {"check_s": 120})
    assert result["status"] == "TIME_LIMIT_EXCEEDED", result
    assert result["reason"] == ("the job reached the agent's time limit for one job (all its phases together) in "
                                "case 'n=1'")


@pytest.mark.integration
def test_a_segfault_is_a_runtime_error_naming_sigsegv(vector_add, judge_run_job):
    source = f'#include <cstddef>\nextern "C" void solution({VA_SIGNATURE}) {{ *(volatile float*)nullptr = c[0]; }}\n'
    result, _ = judge_run_job(vector_add, source, "cpp", "check")
    assert result["status"] == "RUNTIME_ERROR", result
    assert "SIGSEGV" in result["reason"]
    assert "case 'n=1'" in result["reason"]


@pytest.mark.integration
def test_a_library_without_the_solution_symbol_is_a_runtime_error_saying_so(vector_add, judge_run_job):
    source = (f'#include <cstddef>\nextern "C" __attribute__((visibility("hidden"))) void solution({VA_SIGNATURE}) '
              f"{VA_BODY}\n")
    result, _ = judge_run_job(vector_add, source, "cpp", "check")
    assert result["status"] == "RUNTIME_ERROR", result
    assert result["reason"].startswith("cannot load the solution: ")
    assert "undefined symbol: solution" in result["reason"]


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
    assert "host device" in result["reason"]
    assert "only mode 'compile'" in result["reason"]
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
    assert refused["status"] == "COMPILE_ERROR"
    assert refused["reason"] == "forbidden: vendor BLAS is not allowed"
    assert spawned == []
    # Only code counts, not comments; and a rule applies to its languages only.
    commented, _ = judge_run_job(problem, "// no cblas here\n/* hipStreamCreate */\n" + VECTOR_ADD_CPP, "cpp", "check")
    other_language, _ = judge_run_job(problem, "static void f() { hipStreamCreate(0); }\n" + VECTOR_ADD_CPP,
                                      "cpp", "compile")
    assert commented["status"] == "CHECKED", commented
    assert other_language["status"] == "COMPILE_ERROR"
    assert "forbidden" not in other_language["reason"]


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

"""What a job request must be before anything is compiled: JobSpec validation (every bad field
named) and the `solution` precheck (the declaration matches the problem's signature)."""

from __future__ import annotations

from typing import Any

import pytest

from agent.judging.judge import MAX_SOURCE_BYTES, JobSpec, JobSpecError
from agent.judging.precheck import precheck
from agent.problems.bundle import Problem
from agent.sandbox.resources import CEILINGS, ResourceLimits
from agent.sandbox.toolchain import CompileRejected
from tests.agent.conftest import PROBLEMS_DIR, load_problem

VECTOR_ADD_CPP = (PROBLEMS_DIR / "vector-add" / "solutions" / "cpp.cpp").read_text()
VA_SIGNATURE = "const float* a, const float* b, float* c, size_t n"
VA_BODY = "{ for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }"


@pytest.fixture
def vector_add() -> Problem:
    return load_problem("vector-add")


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
    "leaderboard_without_ranked_seed": (lambda: _body(mode="leaderboard"), "ranked_seed:"),
    "boolean_ranked_seed": (lambda: _body(mode="leaderboard", ranked_seed=True), "ranked_seed:"),
    "negative_ranked_seed": (lambda: _body(mode="leaderboard", ranked_seed=-1), "ranked_seed:"),
    "ranked_seed_past_2_63": (lambda: _body(mode="leaderboard", ranked_seed=2**63), "ranked_seed:"),
    "text_ranked_seed": (lambda: _body(mode="leaderboard", ranked_seed="42"), "ranked_seed:"),
    "ranked_seed_off_the_leaderboard": (lambda: _body(ranked_seed=42), "ranked_seed:"),
    "leaderboard_without_ranked_cases": (lambda: _body(mode="leaderboard", ranked_seed=1, problem=_unranked()),
                                         "problem: has no ranked case"),
}


def _unranked() -> dict[str, Any]:
    problem = load_problem("vector-add")
    definition = {k: v for k, v in problem.definition.items() if k != "ranked"}
    return {"definition": definition, "reference_py": problem.reference_source}


def test_a_leaderboard_job_takes_the_platforms_seed() -> None:
    spec = JobSpec.from_request(_body(mode="leaderboard", ranked_seed=2**63 - 1))
    assert (spec.mode, spec.ranked_seed) == ("leaderboard", 2**63 - 1)


@pytest.mark.parametrize("case", list(INVALID_REQUESTS), ids=list(INVALID_REQUESTS))
def test_jobspec_validation_names_the_bad_field(case):
    build, prefix = INVALID_REQUESTS[case]
    with pytest.raises(JobSpecError) as info:
        JobSpec.from_request(build())
    assert str(info.value).startswith(prefix), str(info.value)


def test_jobspec_accepts_a_valid_request_and_clamps_limits_to_the_ceilings():
    spec = JobSpec.from_request(_body(limits={"check_s": 10_000, "nproc": 8}, seed=7))
    assert spec.id == "job-1"
    assert spec.language == "cpp"
    assert spec.mode == "benchmark"
    assert spec.seed == 7
    assert spec.limits.check_s == CEILINGS["check_s"]
    assert spec.limits.nproc == 8
    assert spec.limits.benchmark_s == ResourceLimits().benchmark_s
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

"""Every GPU benchmark and ranked case of the catalogue takes at least MIN_GPU_CASE_US at MI300X's
speed of light, or its problem says why not (a case's `short:`). Below about 20 us a case times the
launch and the clock's resolution, not the kernel: a ranking of 1 us cases ranks launch latency."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.problems.bundle import Problem, load_catalogue
from agent.problems.roofline import MI300X, MIN_GPU_CASE_US, floor
from agent.problems.schema import Case, ProblemError, parse_cases

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"
CATALOGUE = load_catalogue(PROBLEMS)


def floor_us(problem: Problem, case: object) -> float:
    found = floor(flops=problem.flop_count(case), nbytes=problem.byte_count(case),  # type: ignore[arg-type]
                  flops_type=problem.flops_type, peaks=MI300X)
    return found.floor_ms * 1e3 if found else 0.0


@pytest.mark.parametrize("problem", CATALOGUE, ids=lambda p: p.slug)
def test_every_gpu_case_is_long_enough_or_says_why(problem: Problem) -> None:
    short = [f"{kind} {case.name}: {floor_us(problem, case):.2f} us"
             for kind in ("benchmark", "ranked") for case in problem.cases(kind, "gpu")
             if floor_us(problem, case) < MIN_GPU_CASE_US and len(case.short) < 40]
    assert short == []


@pytest.mark.parametrize("problem", CATALOGUE, ids=lambda p: p.slug)
def test_a_reason_to_be_short_is_given_only_where_a_case_is_short(problem: Problem) -> None:
    """A `short:` left on a case that grew would excuse the next one that shrinks."""
    excused = [case.name for kind in ("benchmark", "ranked") for case in problem.cases(kind, "gpu")
               if case.short and floor_us(problem, case) >= MIN_GPU_CASE_US]
    assert excused == []


def test_a_test_case_has_no_reason_to_be_short() -> None:
    problem = CATALOGUE[0]
    case = {"name": "x", "devices": ["gpu"], "params": problem.tests[0].params, "short": "because"}
    with pytest.raises(ProblemError, match="short"):
        parse_cases([case], "tests", problem.signature)
    assert parse_cases([case], "ranked", problem.signature)[0].short == "because"


# Inputs that say which rows, pages or experts belong together: the benchmark's changed elements
# (each takes another element's value) would break that structure and time a case no model makes.
STRUCTURE_INPUTS = {"moe-grouped-gemm": {"expert_ids"}, "moe-permute": {"topk_ids"},
                    "fused-moe-bf16": {"topk_ids", "w1"},
                    "mla-decode": {"block_table", "seq_lens"}, "spmv-csr": {"row_ptr", "col_idx"},
                    "paged-gqa-decode-bf16": {"block_table", "seq_lens"},
                    "paged-gqa-decode-fp8kv": {"block_table", "seq_lens"}}


@pytest.mark.parametrize("slug", sorted(STRUCTURE_INPUTS))
def test_inputs_that_carry_structure_are_not_changed_by_the_benchmark(slug: str) -> None:
    problem = next(p for p in CATALOGUE if p.slug == slug)
    assert STRUCTURE_INPUTS[slug] <= problem.kept_inputs


@pytest.mark.parametrize(("B", "P"), [(2, 1), (3, 2), (8, 5), (9, 3), (64, 2)])
def test_mla_decode_draws_the_work_its_formulas_count(B: int, P: int) -> None:
    """flops and bytes count B (64 P + 1) / 2 cached tokens: every draw holds that many (half a token
    less with B odd), so a timed case's GFLOPS and speed of light do not move with the draw. Small
    batches stand for the catalogue's (the generator's lengths depend on B and P alone)."""
    problem = next(p for p in CATALOGUE if p.slug == "mla-decode")
    case = Case("draw", ("gpu",), {"B": B, "H": 1, "P": P, "scale": 0.1352})
    for seed in range(4):
        lengths = problem.generate(case, np.random.default_rng(seed))["seq_lens"]
        assert abs(int(lengths.sum()) - B * (64 * P + 1) / 2) <= 0.5
        assert 1 <= lengths.min() and lengths.max() <= 64 * P

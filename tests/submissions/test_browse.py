"""Browsing problems (submissions.browse): data types stored by the loader, the filters (they
combine, on the delimited labels index), the counts beside each filter value, and how many users
solved each problem. Run on PostgreSQL too: DATABASE_URL=postgres://... pytest this file."""

from __future__ import annotations

from typing import Any

import pytest

from leaderboard.selectors import solved_counts
from submissions.browse import ProblemFilters, problem_facets, problems_filtered
from submissions.catalogue import problem_store
from submissions.models import Problem
from tests.submissions.browse_data import solve

pytestmark = pytest.mark.usefixtures("problems_loaded")


def slugs(**filters: str) -> list[str]:
    return list(problems_filtered(filters=ProblemFilters(**filters)).values_list("slug", flat=True))


def test_the_loader_stores_each_problems_data_types_and_their_labels() -> None:
    problem = Problem.objects.get(slug="gemm-fp8-blockwise")
    assert problem.data_types == ["fp8_e4m3fnuz", "float", "bfloat16"]
    assert problem.labels == ("|tag:matrix-cores|tag:fp8|tag:gemm|tag:quantization"
                              "|type:fp8_e4m3fnuz|type:float|type:bfloat16|")
    assert Problem.objects.get(slug="histogram").data_types == ["int32"]


def test_labels_follow_the_tags_whoever_saves_them() -> None:
    problem = Problem.objects.get(slug="vector-add")
    problem.tags = ["elementwise", "beginner"]
    problem.save(update_fields=["tags"])
    assert "vector-add" in slugs(tag="beginner")
    assert "vector-add" not in slugs(tag="memory-bound")


def test_filters_combine_tag_and_type_and_difficulty() -> None:
    assert slugs(tag="gemm", type="fp8_e4m3fnuz") == ["gemm-fp8", "gemm-fp8-blockwise", "gemm-fp8-blockwise-grouped"]
    assert slugs(tag="gemm", type="fp8_e4m3fnuz", difficulty="hard") == ["gemm-fp8-blockwise",
                                                                     "gemm-fp8-blockwise-grouped"]
    assert slugs(tag="gemm", type="bfloat16", difficulty="hard") == ["gemm-fp8-blockwise", "gemm-fp8-blockwise-grouped",
                                                                 "linear-cross-entropy", "moe-grouped-gemm"]
    assert set(slugs(type="int8")) == {"gemm-int8", "gemm-w8a8-scaled"}
    bf16_gemms = slugs(tag="gemm", type="bfloat16")
    assert set(bf16_gemms) == {"gemm-bf16", "gemm-bf16-nt", "gemm-batched-bf16", "moe-grouped-gemm",
                               "gemm-fp8-blockwise", "gemm-bias-gelu-bf16", "gemm-w8a8-scaled", "linear-cross-entropy",
                               "gemm-residual-bf16", "gemm-fp8-blockwise-grouped"}
    assert all(Problem.objects.get(slug=s).difficulty == "easy" for s in slugs(difficulty="easy"))
    assert len(slugs()) == Problem.objects.filter(is_active=True).count()


def test_a_filter_matches_whole_values_only() -> None:
    # "gemm" is not "implicit-gemm" nor "gemv"; an underscore is no wildcard (LIKE's own "_").
    assert "conv2d-nhwc-fp16" in slugs(tag="implicit-gemm")
    assert "conv2d-nhwc-fp16" not in slugs(tag="gemm")
    assert slugs(tag="gem") == []
    assert slugs(type="fp8_e4m3fnu_") == []
    assert slugs(type="float%") == []
    assert slugs(tag="no-such-tag") == []
    assert slugs(type="fp8_e5m2") == []
    # A tag is only a tag: "float" is a type, not a tag of any problem.
    assert slugs(tag="float") == []
    assert "vector-add" in slugs(type="float")


def test_retired_problems_are_not_listed() -> None:
    Problem.objects.filter(slug="gemm-fp8").update(is_active=False)
    assert slugs(tag="gemm", type="fp8_e4m3fnuz") == ["gemm-fp8-blockwise", "gemm-fp8-blockwise-grouped"]


def test_facets_count_what_each_value_would_list_beside_the_other_filters() -> None:
    everything = problem_facets(filters=ProblemFilters())
    assert everything.total == len(slugs())
    assert dict(everything.types)["fp8_e4m3fnuz"] == len(slugs(type="fp8_e4m3fnuz"))
    assert sum(n for _, n in everything.difficulties) == everything.total
    assert [d for d, _ in everything.difficulties] == ["easy", "medium", "hard"]

    facets = problem_facets(filters=ProblemFilters(tag="gemm", difficulty="hard"))
    for value, n in facets.types:  # the type's count: tag gemm, hard, that type
        assert n == len(slugs(tag="gemm", difficulty="hard", type=value)), value
    for value, n in facets.tags:  # the tag's count: hard, whatever the tag asked for
        assert n == len(slugs(tag=value, difficulty="hard")), value
    for value, n in facets.difficulties:
        assert n == len(slugs(tag="gemm", difficulty=value)), value
    # Every value stays listed (0 where it lists nothing now), so any can be chosen next.
    assert {t for t, _ in facets.tags} == {t for t, _ in everything.tags}
    assert dict(facets.tags)["elementwise"] == 0
    assert dict(facets.tags)["atomics"] == 0


def test_solved_counts_distinct_users_whose_submission_passed_the_tests(
        make_user: Any, local_pool: Any, django_assert_num_queries: Any) -> None:
    ann, bob, cat, dan = (make_user(n) for n in ("ann", "bob", "cat", "dan"))
    solve(ann, "vector-add", pool=local_pool)
    solve(ann, "vector-add", pool=local_pool)  # twice: one user
    solve(bob, "vector-add", "CHECKED", pool=local_pool)  # check mode passes the tests too
    solve(cat, "vector-add", "WRONG_ANSWER", pool=local_pool)
    solve(cat, "vector-add", "COMPILED", pool=local_pool)  # compiling proves nothing
    solve(dan, "vector-add", pool=local_pool, invalidated=True)  # staff invalidated it
    solve(dan, "softmax", pool=local_pool)
    ids = dict(Problem.objects.values_list("slug", "pk"))
    with django_assert_num_queries(1):
        counts = solved_counts(problem_ids=ids.values())
    assert counts == {ids["vector-add"]: 2, ids["softmax"]: 1}


def test_loading_a_bundle_again_keeps_its_labels(problem_bundles: list[Any]) -> None:
    bundle = next(b for b in problem_bundles if b.slug == "gemm-int8")
    assert problem_store(bundle) == "unchanged"
    assert slugs(type="int8") == ["gemm-int8", "gemm-w8a8-scaled"]

"""GET /api/v1/problems: filtered by ?tag=, ?type= and ?difficulty= (they combine), each problem with
its data types and how many users solved it, in a fixed number of queries; bad filters are a 400."""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.submissions.browse_data import solve

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


def listed(api: Any, **params: str) -> list[dict[str, Any]]:
    response = api.get("/api/v1/problems", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_filters_combine_and_each_problem_says_its_types_and_solvers(owner: Any, other_user: Any, api_as: Any,
                                                                      local_pool: Any) -> None:
    solve(owner, "gemm-fp8-blockwise", pool=local_pool)
    solve(other_user, "gemm-fp8-blockwise", "CHECKED", pool=local_pool)
    solve(other_user, "gemm-fp8", "WRONG_ANSWER", pool=local_pool)
    api = api_as(owner)
    rows = listed(api, tag="gemm", type="fp8_e4m3fnuz")
    assert [(p["slug"], p["solved_by"]) for p in rows] == [("gemm-fp8", 0), ("gemm-fp8-blockwise", 2),
                                                           ("gemm-fp8-blockwise-grouped", 0)]
    assert rows[1]["data_types"] == ["fp8_e4m3fnuz", "float", "bfloat16"]
    assert [p["slug"] for p in listed(api, tag="gemm", type="fp8_e4m3fnuz", difficulty="hard")] == [
        "gemm-fp8-blockwise", "gemm-fp8-blockwise-grouped"]
    assert all(p["difficulty"] == "medium" for p in listed(api, difficulty="medium"))
    assert all("int32" in p["data_types"] for p in listed(api, type="int32"))
    # Empty values mean "any"; case and spaces are forgiven.
    assert len(listed(api, tag="", type="", difficulty="")) == len(listed(api))
    assert [p["slug"] for p in listed(api, tag=" GEMM ", type="INT8")] == ["gemm-int8", "gemm-w8a8-scaled"]
    # The detail says it too.
    detail = api.get("/api/v1/problems/gemm-fp8-blockwise").json()
    assert detail["solved_by"] == 2
    assert detail["data_types"] == ["fp8_e4m3fnuz", "float", "bfloat16"]


def test_a_value_no_problem_has_lists_nothing(api_as: Any, owner: Any) -> None:
    api = api_as(owner)
    assert listed(api, tag="no-such-tag") == []
    assert listed(api, type="fp8_e5m2") == []
    assert listed(api, tag="elementwise", difficulty="hard") == []


@pytest.mark.parametrize(("params", "field"), [
    ({"difficulty": "extreme"}, "difficulty"),
    ({"tag": "gemm,fp8"}, "tag"),
    ({"tag": "%"}, "tag"),
    ({"type": "float*"}, "type"),
    ({"type": "x" * 41}, "type"),
    ({"tag": "-gemm"}, "tag"),
])
def test_a_malformed_filter_is_a_400_that_names_it(api_as: Any, owner: Any, params: dict[str, str],
                                                   field: str) -> None:
    response = api_as(owner).get("/api/v1/problems", params)
    assert response.status_code == 400
    body = response.json()
    assert body["message"].startswith(f"{field}: "), body
    assert list(body["extra"]["fields"]) == [field], body


def test_the_list_takes_a_fixed_number_of_queries(make_user: Any, api_as: Any, owner: Any, local_pool: Any,
                                                  django_assert_max_num_queries: Any) -> None:
    slugs = ["vector-add", "softmax", "gemm-bf16", "histogram", "gemm-int8", "prefix-sum"]
    for i in range(8):
        user = make_user(f"solver{i}")
        for slug in slugs[: i % len(slugs) + 1]:
            solve(user, slug, pool=local_pool)
    api = api_as(owner)
    # The token, the caller's bests, the problems, the solved counts, the best speed of light per pool:
    # whatever the number of problems.
    with django_assert_max_num_queries(6):
        rows = listed(api)
    assert len(rows) > 30
    by_slug = {p["slug"]: p["solved_by"] for p in rows}
    assert by_slug["vector-add"] == 8
    assert by_slug["softmax"] == 6
    assert by_slug["prefix-sum"] == 1
    assert by_slug["matmul-fp32"] == 0
    with django_assert_max_num_queries(6):
        assert len(listed(api, tag="gemm")) > 5


def test_the_schema_documents_the_filters() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/problems"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"tag", "type", "difficulty"}
    assert "400" in operation["responses"]
    listed_as = operation["responses"]["200"]["content"]["application/json"]["schema"]["items"]["$ref"]
    problem = schema["components"]["schemas"][listed_as.rsplit("/", 1)[1]]["properties"]
    assert problem["solved_by"]["type"] == "integer"
    assert problem["data_types"]["type"] == "array"


def test_the_list_encoded_ahead_is_the_same_answer_laid_out_on_request(owner: Any, api_as: Any,
                                                                       local_pool: Any) -> None:
    """The rows are encoded once per cache period (core.renderers.EncodedJSON); the caller's own best
    still shows in its row, and `Accept: application/json; indent=2` still lays the answer out."""
    best = solve(owner, "vector-add", pool=local_pool)
    type(best).objects.filter(pk=best.pk).update(score_ms=1.25)
    api = api_as(owner)
    compact = api.get("/api/v1/problems")
    laid_out = api.get("/api/v1/problems", HTTP_ACCEPT="application/json; indent=2")
    assert compact["Content-Type"] == laid_out["Content-Type"] == "application/json"
    assert b"\n" not in compact.content
    assert laid_out.content.startswith(b"[\n  {")
    assert compact.json() == laid_out.json()
    bests = {row["slug"]: row["your_best"] for row in compact.json()}
    assert [(b["pool"], b["score_ms"]) for b in bests["vector-add"]] == [(local_pool.name, 1.25)]
    assert all(b == [] for slug, b in bests.items() if slug != "vector-add")

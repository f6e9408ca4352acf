"""The OpenAPI schema tells the truth (the live check is tests/integration/test_schema_contract.py):
it is valid, each operation lists its error statuses in the one error shape, the list is paginated,
/usage has its own schema; and the behaviour the schema promises holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator

pytestmark = pytest.mark.django_db
ERROR = {"$ref": "#/components/schemas/Error"}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method.upper(), path, op) for path, ops in schema["paths"].items() for method, op in ops.items()]


def test_the_schema_is_valid_openapi_without_a_warning(tmp_path: Path) -> None:
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))


def test_every_operation_lists_its_errors_in_the_one_shape(schema: dict[str, Any]) -> None:
    for method, path, op in operations(schema):
        statuses = set(op["responses"])
        public = path in ("/healthz", "/readyz", "/metrics", "/api/v1/problems/{slug}/leaderboard")
        # 401: no valid credentials; POST /auth/token answers it to a wrong password.
        assert ("401" in statuses) != public, (method, path)
        if "{" in path or path == "/api/v1/submissions" and method == "GET":
            assert "404" in statuses, (method, path)
        if "requestBody" in op:
            assert {"400", "413", "415"} <= statuses, (method, path)
        for status, response in op["responses"].items():
            if status.startswith("4"):
                assert response["content"]["application/json"]["schema"] == ERROR, (method, path, status)
    create = schema["paths"]["/api/v1/submissions"]["post"]["responses"]
    assert {"402", "403", "429"} <= set(create)
    assert "409" in schema["paths"]["/api/v1/submissions/{submission_id}/cancel"]["post"]["responses"]
    assert "403" in schema["paths"]["/api/v1/metrics"]["get"]["responses"]


def test_the_submission_list_is_paginated_and_usage_has_its_own_schema(schema: dict[str, Any]) -> None:
    listed = schema["paths"]["/api/v1/submissions"]["get"]["responses"]["200"]["content"]["application/json"]
    page = schema["components"]["schemas"][listed["schema"]["$ref"].rsplit("/", 1)[1]]
    assert {"count", "next", "previous", "results"} <= set(page["properties"])
    usage = schema["paths"]["/api/v1/usage"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    metrics = schema["paths"]["/api/v1/metrics"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert usage != metrics
    assert "spent_usd" in schema["components"]["schemas"][usage["$ref"].rsplit("/", 1)[1]]["properties"]


def test_empty_filters_are_allowed_by_the_schema_and_by_the_api(schema: dict[str, Any], owner: Any,
                                                                api_as: Any) -> None:
    parameters = {p["name"]: p["schema"] for p in schema["paths"]["/api/v1/submissions"]["get"]["parameters"]}
    assert "" in parameters["language"]["enum"]
    assert "" in parameters["mode"]["enum"]
    assert "minLength" not in parameters["pool"]
    assert "minLength" not in parameters["problem"]
    response = api_as(owner).get("/api/v1/submissions", {"pool": "", "language": "", "mode": "", "problem": ""})
    assert response.status_code == 200
    assert response.json()["count"] == 0


@pytest.mark.parametrize("page_size", ["0", "101", "x", "²"])
def test_a_page_size_outside_the_schema_is_refused(owner: Any, api_as: Any, page_size: str) -> None:
    response = api_as(owner).get("/api/v1/submissions", {"page_size": page_size})
    assert response.status_code == 400
    assert response.json()["message"].startswith("page_size")


@pytest.mark.parametrize("body", [{"source": 0}, {"source": True}, {"problem": 7}])
def test_a_number_is_not_taken_for_text(owner: Any, api_as: Any, body: dict[str, Any]) -> None:
    response = api_as(owner).post("/api/v1/submissions", {"problem": "vector-add", "source": "x", **body},
                                  format="json")
    assert response.status_code == 400
    assert set(response.json()) == {"message", "extra"}


@pytest.mark.parametrize(("method", "path", "allow"), [
    ("post", "/api/v1/submissions/00000000-0000-0000-0000-000000000000/events", "GET"),
    ("delete", "/api/v1/submissions", "GET, POST"),
    ("put", "/api/v1/me", "GET"),
])
def test_405_answers_say_what_is_allowed(owner: Any, api_as: Any, method: str, path: str, allow: str) -> None:
    response = getattr(api_as(owner), method)(path)
    assert response.status_code == 405
    assert set(response.json()) == {"message", "extra"}
    assert {m.strip() for m in response["Allow"].split(",")} >= set(allow.split(", "))


@pytest.mark.parametrize("query", ["?version=%0d%0aX-Evil:%201", "?version=2", "?lang=zz"],
                         ids=["newline", "other-version", "language"])
def test_the_served_schema_is_one_whatever_the_query_says(client: Any, query: str) -> None:
    plain = client.get("/api/v1/schema?format=json")
    asked = client.get(f"/api/v1/schema{query}&format=json")
    assert asked.status_code == 200
    assert asked.content == plain.content
    assert asked["Content-Disposition"] == 'inline; filename="HIPJudge API.json"'
    assert "X-Evil" not in asked


def test_text_a_request_may_send_is_described_without_nul_characters(schema: dict[str, Any]) -> None:
    """DRF refuses NUL in text with a 400: the schema says so, so a string with NUL is no valid value
    (Schemathesis sent one in `?pool=` and rightly called the 400 a contract failure)."""
    listed = {p["name"]: p["schema"] for p in schema["paths"]["/api/v1/submissions"]["get"]["parameters"]}
    assert listed["pool"]["pattern"] == "^[^\\u0000]*$"
    create = schema["components"]["schemas"]["SubmissionCreateRequest"]["properties"]
    assert create["source"]["pattern"] == create["pool"]["pattern"] == "^[^\\u0000]*$"
    assert "pattern" not in schema["components"]["schemas"]["Error"]["properties"]["message"]  # answers: no rule

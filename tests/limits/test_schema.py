"""The OpenAPI schema documents the refusals in the one error shape, and the pools' access fields."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def schema(client: Any, db: Any) -> dict[str, Any]:
    response = client.get("/api/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def test_refusals_are_documented_with_the_error_shape(schema: dict[str, Any]) -> None:
    error = schema["components"]["schemas"]["Error"]
    assert set(error["properties"]) == {"message", "extra"}
    submit = schema["paths"]["/api/v1/submissions"]["post"]["responses"]
    token = schema["paths"]["/api/v1/auth/token"]["post"]["responses"]
    for responses, codes in ((submit, ("400", "402", "403", "429")), (token, ("400", "429"))):
        for code in codes:
            assert responses[code]["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/Error"}, code
            assert responses[code]["description"]
    assert "Retry-After" in submit["429"]["description"]


def test_pools_document_their_access_fields(schema: dict[str, Any]) -> None:
    pool = schema["components"]["schemas"]["PoolOutput"]["properties"]
    assert {"paid", "open_to_you", "access"} <= set(pool)
    assert pool["open_to_you"]["type"] == "boolean"
    assert pool["access"]["type"] == "string"

"""Any JSON body gets a value or a 400/413 in the error shape, never a 500 (issue 32: 1,000 nested
`[` made DRF's stock parser raise RecursionError on POST /auth/token, /submissions and PATCH)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.test import APIClient

from core.parsers import MAX_DEPTH, nesting_depth, parse_json

DEEP = b"[" * 1000  # 1 KB: what the fault run sent (depth 900 already answered 400)


def error_shape(response: Any) -> dict:
    body = response.json()
    assert set(body) == {"message", "extra"}, body
    return body


@pytest.mark.django_db
@pytest.mark.parametrize("body", [DEEP, b'{"a":' * 1000, b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1)],
                         ids=["1000 arrays", "1000 objects", "one level too deep"])
def test_a_deeply_nested_body_is_a_400_without_logging_in(body: bytes) -> None:
    response = APIClient().post("/api/v1/auth/token", body, content_type="application/json")
    assert response.status_code == 400
    assert "nest deeper" in error_shape(response)["message"]


@pytest.mark.django_db
def test_a_deeply_nested_body_is_a_400_on_the_submission_endpoints(owner: Any, api_as: Any) -> None:
    client = api_as(owner)
    assert client.post("/api/v1/submissions", DEEP, content_type="application/json").status_code == 400
    response = client.patch(f"/api/v1/submissions/{uuid.uuid4()}", DEEP, content_type="application/json")
    assert response.status_code == 400
    assert error_shape(response)


@pytest.mark.django_db
@pytest.mark.parametrize("body", [b'{"username": NaN}', b'{"username": 1e400}', b'{"username": -Infinity}',
                                  b'{"username": "\xff"}', b'{"username": 1' + b"0" * 5000 + b"}"],
                         ids=["NaN", "overflow", "Infinity", "not UTF-8", "5000 digits"])
def test_numbers_json_cannot_carry_and_bytes_that_are_not_text_are_a_400(body: bytes) -> None:
    response = APIClient().post("/api/v1/auth/token", body, content_type="application/json")
    assert response.status_code == 400
    assert error_shape(response)


@pytest.mark.django_db
def test_a_body_over_the_limit_is_a_413_even_read_as_a_stream() -> None:
    body = b"[" + b"0," * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + b"0]"
    response = APIClient().post("/api/v1/auth/token", body, content_type="application/json")
    assert response.status_code == 413
    assert error_shape(response)


def test_nesting_is_measured_without_recursion() -> None:
    value: Any = 0
    for _ in range(100_000):  # far past the interpreter's recursion limit
        value = [value]
    assert nesting_depth(value, MAX_DEPTH) == MAX_DEPTH + 1
    assert nesting_depth({"a": [1, {"b": []}], "c": 2}, MAX_DEPTH) == 4
    assert nesting_depth("text", MAX_DEPTH) == 0


def test_a_value_at_the_limit_parses() -> None:
    body = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert nesting_depth(parse_json(body), MAX_DEPTH) == MAX_DEPTH
    with pytest.raises(ParseError):
        parse_json(b"[" + body + b"]")

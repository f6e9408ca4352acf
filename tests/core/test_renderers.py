"""Issue 40 (throughput): the problem list's rows are encoded once per process and cache period, not
per request. What the API sends must not change: parts joined by EncodedJSON are byte for byte the
renderer's own answer, and `Accept: application/json; indent=N` still lays the answer out."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.renderers import JSONRenderer as DrfJSONRenderer

from core.renderers import EncodedJSON, JSONRenderer, encode

ROWS: list[Any] = [
    {"slug": "vector-add", "title": "Vector add", "tags": ["memory-bound"], "your_best": [], "n": 3},
    {"slug": "ü-line", "title": "a\u2028b\u2029c \"quoted\" \\ </script>", "score": 1.5, "none": None},
    {"nested": {"list": [1, 2.25, True, False, None]}, "money": Decimal("0.10")},
]


def test_rows_encoded_apart_and_joined_are_the_renderers_answer_byte_for_byte() -> None:
    whole = DrfJSONRenderer().render(ROWS)
    assert EncodedJSON.array([encode(row) for row in ROWS]).body == whole
    assert EncodedJSON.array([]).body == DrfJSONRenderer().render([])
    assert b"\\u2028" in whole  # (the renderer's escape of JavaScript's line separators, kept)


def test_the_renderer_passes_encoded_json_through() -> None:
    body = EncodedJSON.array([encode(row) for row in ROWS])
    assert JSONRenderer().render(body, "application/json") is body.body
    assert JSONRenderer().render(ROWS, "application/json") == DrfJSONRenderer().render(ROWS, "application/json")


@pytest.mark.parametrize("accept", ["application/json; indent=2", "application/json; indent=8"])
def test_an_answer_asked_for_with_an_indent_is_laid_out(accept: str) -> None:
    body = EncodedJSON.array([encode(row) for row in ROWS])
    laid_out = JSONRenderer().render(body, accept)
    assert laid_out == DrfJSONRenderer().render(json.loads(body.body), accept)
    assert laid_out.count(b"\n") > len(ROWS)

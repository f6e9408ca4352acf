"""Request bodies are bounded: an oversized API body is a 413 in the error
shape, and under ASGI it is refused before Django spools it (declared or chunked)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import settings

from core.body_limit import BodyLimit
from tests.conftest import run_coroutine

LIMIT = settings.DATA_UPLOAD_MAX_MEMORY_SIZE


@pytest.mark.django_db
@pytest.mark.parametrize("content_type", ["application/json", "application/x-www-form-urlencoded"])
def test_an_oversized_api_body_is_a_413_in_the_error_shape(owner: Any, api_as: Any, content_type: str) -> None:
    big = "x" * LIMIT
    body = json.dumps({"problem": "vector-add", "source": big}) if "json" in content_type else f"source={big}"
    response = api_as(owner).post("/api/v1/submissions", body, content_type=content_type)
    assert response.status_code == 413
    assert set(response.json()) == {"message", "extra"}
    assert str(LIMIT) in response.json()["message"]


def test_the_installed_drf_parsers_apply_the_limit() -> None:
    """DRF before 3.17.2 parsed JSON from the raw stream, past DATA_UPLOAD_MAX_MEMORY_SIZE."""
    import rest_framework

    assert tuple(int(p) for p in rest_framework.VERSION.split(".")[:3]) >= (3, 17, 2)


def asgi_call(headers: list[tuple[bytes, bytes]], chunks: list[bytes]) -> tuple[list[dict], int, list[str]]:
    sent: list[dict] = []
    reads = 0
    seen: list[str] = []

    async def receive() -> dict:
        nonlocal reads
        reads += 1
        if reads > len(chunks):
            raise AssertionError("the body was read past its end")
        return {"type": "http.request", "body": chunks[reads - 1], "more_body": reads < len(chunks)}

    async def send(message: dict) -> None:
        sent.append(message)

    async def app(scope: dict, receive: Any, send: Any) -> None:  # stands in for Django: reads it all
        while True:
            message = await receive()
            seen.append(message["type"])
            if message["type"] != "http.request" or not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 201, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    scope = {"type": "http", "method": "POST", "path": "/api/v1/submissions", "headers": headers}
    run_coroutine(BodyLimit(app)(scope, receive, send))
    return sent, reads, seen


def test_asgi_refuses_a_declared_oversized_body_without_reading_it() -> None:
    sent, reads, seen = asgi_call([(b"content-length", str(5 * 2**30).encode())], [b"never read"])
    assert sent[0]["status"] == 413
    assert reads == 0
    assert seen == []
    assert json.loads(sent[1]["body"])["message"].startswith("The request body is larger")


def test_asgi_cuts_off_a_chunked_body_at_the_limit() -> None:
    chunk = b"x" * (64 * 1024)
    sent, reads, seen = asgi_call([], [chunk] * 100)
    assert [m["status"] for m in sent if m["type"] == "http.response.start"] == [413]  # the app's 201 is dropped
    assert reads == LIMIT // len(chunk) + 1
    assert seen[-1] == "http.disconnect"


def test_asgi_passes_a_body_within_the_limit() -> None:
    sent, reads, _ = asgi_call([(b"content-length", b"10")], [b"0123456789"])
    assert sent[0]["status"] == 201
    assert reads == 1

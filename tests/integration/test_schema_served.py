"""A web process serves its OpenAPI schema to every client that asks at once, from its first
request on: drf-spectacular's generator is not thread-safe (core.schema_view), and before the
schema was built once under a lock 11 of 12 such first requests answered 500."""

from __future__ import annotations

import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.integration.conftest import Stack

pytestmark = [pytest.mark.integration, pytest.mark.contract]

CLIENTS = 12


def test_the_first_schema_requests_of_a_new_web_process_all_get_the_schema(stack: Stack) -> None:
    url = stack.start_web(probe="/healthz")  # nothing has asked for the schema yet

    def fetch(_: int) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(f"{url}/api/v1/schema?format=json", timeout=60) as response:  # noqa: S310
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    with ThreadPoolExecutor(CLIENTS) as pool:
        answers = list(pool.map(fetch, range(CLIENTS)))
    assert [status for status, _ in answers] == [200] * CLIENTS
    assert len({body for _, body in answers}) == 1
    assert b'"openapi"' in answers[0][1]

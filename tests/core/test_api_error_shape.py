"""Every error the API answers is JSON in the one error shape, whoever asks and with whatever method
(issue 32: `PUT …/events` with a session answered Django's HTML CSRF page). Every route under
/api/v1/ is tried with every method, anonymously, with a token, and with a session but no CSRF token
(the browser's case), so a route added later is covered without a change here."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
SAMPLE = {"submission_id": str(uuid.uuid4()), "slug": "no-such-problem"}


def api_paths() -> Iterator[str]:
    def walk(patterns: list, prefix: str) -> Iterator[str]:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                yield prefix + str(entry.pattern)
    for route in walk(get_resolver().url_patterns, "/"):
        if route.startswith("/api/v1/"):
            for name, value in SAMPLE.items():
                route = route.replace(f"<uuid:{name}>", value).replace(f"<slug:{name}>", value)
            yield route


def clients(user: Any, api_as: Any) -> dict[str, Client]:
    session = Client(enforce_csrf_checks=True)
    session.force_login(user)
    return {"anonymous": api_as(None), "token": api_as(user), "session without CSRF": session}


@pytest.mark.django_db
def test_every_api_error_has_the_error_shape(owner: Any, api_as: Any) -> None:
    paths = sorted(set(api_paths()))
    assert "/api/v1/submissions/{submission_id}/events".format(**SAMPLE) in paths
    wrong = []
    for who, client in clients(owner, api_as).items():
        for path in paths:
            for method in METHODS:
                response = client.generic(method, path, b"{}", content_type="application/json")
                if response.status_code < 400:
                    continue
                try:
                    body = response.json()
                except ValueError:
                    body = None
                if not (isinstance(body, dict) and set(body) == {"message", "extra"}):
                    wrong.append(f"{who} {method} {path}: {response.status_code} {response['Content-Type']}")
    assert not wrong, "\n".join(wrong)

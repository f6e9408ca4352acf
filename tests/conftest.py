"""Shared fixtures: personas (owner / other user / staff), API clients, problems and the local pool.

Everything that needs the database asks for it explicitly (pytest-django's `db`), so the agent's
and the dstack layer's tests, which never touch Django models, are unaffected.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = ROOT / "problems"


@pytest.fixture(autouse=True)
def fresh_submission_lookups() -> None:
    """Each test's pools and problems are new rows (the previous test's were rolled back without
    signals): nothing cached by an earlier test may be served to this one."""
    from submissions.lookups import lookups_clear

    lookups_clear()


@pytest.fixture
def make_user(db: Any) -> Callable[..., Any]:
    from django.contrib.auth import get_user_model

    def make(username: str, *, staff: bool = False, password: str = "correct horse battery") -> Any:
        return get_user_model().objects.create_user(username=username, password=password, is_staff=staff)

    return make


@pytest.fixture
def owner(make_user: Callable[..., Any]) -> Any:
    return make_user("owner")


@pytest.fixture
def other_user(make_user: Callable[..., Any]) -> Any:
    return make_user("other")


@pytest.fixture
def staff_user(make_user: Callable[..., Any]) -> Any:
    return make_user("staff", staff=True)


@pytest.fixture
def api_as() -> Callable[[Any], Any]:
    """api_as(user) -> a DRF APIClient authenticated with the user's token (None: anonymous)."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    def client_for(user: Any) -> APIClient:
        client = APIClient()
        if user is not None:
            token, _ = Token.objects.get_or_create(user=user)
            client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    return client_for


@pytest.fixture
def problems_loaded(db: Any) -> None:
    from submissions.catalogue import problems_load

    report = problems_load(root=PROBLEMS)
    assert "vector-add" in report.created + report.updated + report.unchanged, report.errors


@pytest.fixture
def local_pool(db: Any) -> Any:
    from fleets.services import fleet_ensure

    fleet, _ = fleet_ensure(name="local", backend="local", device="host", max_vms=2, idle_timeout_s=600)
    return fleet


def read_source(name: str, problem: str = "vector-add") -> str:
    return (PROBLEMS / problem / "solutions" / name).read_text()

"""Every endpoint refuses other users (404, so ids do not leak) and anonymous callers (401)."""

from __future__ import annotations

from typing import Any

import pytest

from submissions.models import Status, Submission
from submissions.services import submission_create
from tests.conftest import read_source

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


@pytest.fixture
def submission(owner: Any) -> Submission:
    return submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))


def paths(submission: Submission) -> list[tuple[str, str]]:
    base = f"/api/v1/submissions/{submission.pk}"
    return [("get", base), ("post", f"{base}/cancel"), ("get", f"{base}/events")]


def test_another_user_gets_404_on_every_submission_endpoint(submission: Submission, other_user: Any,
                                                            api_as: Any) -> None:
    client = api_as(other_user)
    for method, path in paths(submission):
        response = getattr(client, method)(path)
        assert response.status_code == 404, (method, path)
        assert response.json()["message"] == "No such submission."
    submission.refresh_from_db()
    assert submission.status == Status.IN_QUEUE  # the foreign cancel did nothing


def test_anonymous_gets_401_on_every_endpoint(submission: Submission, api_as: Any) -> None:
    client = api_as(None)
    endpoints = paths(submission) + [("get", "/api/v1/submissions"), ("post", "/api/v1/submissions"),
                                     ("get", "/api/v1/problems"), ("get", "/api/v1/problems/vector-add"),
                                     ("get", "/api/v1/pools"), ("get", "/api/v1/me")]
    for method, path in endpoints:
        response = getattr(client, method)(path)
        assert response.status_code == 401, (method, path)
        assert set(response.json()) == {"message", "extra"}


def test_the_owner_sees_and_staff_see_any(submission: Submission, owner: Any, staff_user: Any,
                                          api_as: Any) -> None:
    path = f"/api/v1/submissions/{submission.pk}"
    assert api_as(owner).get(path).json()["source"] == read_source("cpp.cpp")
    assert api_as(staff_user).get(path).status_code == 200


def test_the_list_holds_only_my_submissions(submission: Submission, other_user: Any, staff_user: Any,
                                            api_as: Any) -> None:
    submission_create(user=other_user, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    mine = api_as(other_user).get("/api/v1/submissions").json()
    assert mine["count"] == 1
    assert mine["results"][0]["user"] == "other"
    # Staff see their own by default and everyone's only when asking; others asking get their own.
    assert api_as(staff_user).get("/api/v1/submissions").json()["count"] == 0
    assert api_as(staff_user).get("/api/v1/submissions?all=true").json()["count"] == 2
    assert api_as(other_user).get("/api/v1/submissions?all=true").json()["count"] == 1


def test_malformed_ids_are_404_json(owner: Any, api_as: Any) -> None:
    response = api_as(owner).get("/api/v1/submissions/not-a-uuid")
    assert response.status_code == 404
    assert response.json()["message"]


def test_token_endpoint_refuses_a_wrong_password(owner: Any, api_as: Any) -> None:
    client = api_as(None)
    bad = client.post("/api/v1/auth/token", {"username": "owner", "password": "nope"}, format="json")
    assert bad.status_code == 401
    assert bad.json()["message"] == "Wrong username or password."
    good = client.post("/api/v1/auth/token", {"username": "owner", "password": "correct horse battery"},
                       format="json")
    assert good.status_code == 201
    assert good.json()["username"] == "owner"
    client.credentials(HTTP_AUTHORIZATION=f"Token {good.json()['token']}")
    assert client.get("/api/v1/me").json()["username"] == "owner"


def test_me_shows_only_my_own_usage(submission: Submission, other_user: Any, api_as: Any) -> None:
    quota = api_as(other_user).get("/api/v1/me").json()["quota"]
    assert quota["concurrent_used"] == 0
    assert quota["daily_used"] == 0
    assert quota["daily_limit"] == 100

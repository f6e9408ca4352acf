"""The leaderboard for scripts: `GET /api/v1/problems/<slug>/leaderboard`, a submission's rank,
standing, ranked result and history in its detail, and `PATCH` for the owner's withdrawal and
public-source choice."""

from __future__ import annotations

from typing import Any

import pytest

from leaderboard.moderation import submission_invalidate, submission_update
from leaderboard.rejudge import submissions_rejudge
from submissions.models import Judging
from tests.support.ranked import ranked, submit

pytestmark = pytest.mark.usefixtures("problems_loaded")
BOARD = "/api/v1/problems/vector-add/leaderboard"


@pytest.fixture(autouse=True)
def generous_quota(settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10


def test_a_leaderboard_submission_through_the_api(owner: Any, local_pool: Any, api_as: Any) -> None:
    answer = api_as(owner).post("/api/v1/submissions", {"problem": "vector-add", "language": "cpp",
                                                         "mode": "leaderboard", "source": "int x;"}, format="json")
    assert answer.status_code == 201
    assert answer.json()["mode"] == "leaderboard"
    detail = api_as(owner).get(f"/api/v1/submissions/{answer.json()['id']}").json()
    assert detail["leaderboard"] == {"state": "pending", "reason": "The ranked pass has not finished yet.",
                                     "rank": None}
    assert detail["rank"] is None
    assert detail["ranked"] is None
    assert len(detail["history"]) == 1


def test_the_leaderboard_api_ranks_each_users_best_with_its_interval_and_speedup(
        owner: Any, other_user: Any, local_pool: Any, api_as: Any) -> None:
    ranked(owner, 2.0)
    best = ranked(owner, 1.5)
    submission_update(user=owner, submission_id=best.pk, public_source=True)
    theirs = ranked(other_user, 1.8)
    board = api_as(None).get(BOARD, {"pool": "local"})
    assert board.status_code == 200
    data = board.json()
    assert data["problem"] == "vector-add"
    assert data["pool"] == "local"
    assert "geometric mean" in data["scoring"]
    first, second = data["rows"]
    assert (first["rank"], first["user"], first["score_ms"], first["submission"]) == (1, "owner", 1.5, str(best.pk))
    assert first["ci95_ms"] == pytest.approx([1.47, 1.53])
    assert first["speedup"] == 1.0
    assert first["language"] == "cpp"
    assert first["submitted_at"]
    assert first["ranked_at"]
    assert (second["rank"], second["user"], second["submission"]) == (2, "other", None)  # not public
    assert str(theirs.pk) not in board.content.decode()
    assert [r["user"] for r in api_as(owner).get(BOARD, {"limit": 1}).json()["rows"]] == ["owner"]


@pytest.mark.parametrize(("path", "query", "status", "message"), [
    (BOARD, {"pool": "nowhere"}, 404, "No pool 'nowhere'."),
    ("/api/v1/problems/nope/leaderboard", {}, 404, "No problem 'nope'."),
    (BOARD, {"limit": 0}, 400, ""),
    (BOARD, {"limit": 101}, 400, ""),
    (BOARD, {"limit": "many"}, 400, ""),
])
def test_the_leaderboard_api_refuses_what_it_cannot_answer(local_pool: Any, api_as: Any, path: str, query: dict,
                                                           status: int, message: str) -> None:
    answer = api_as(None).get(path, query)
    assert answer.status_code == status
    assert set(answer.json()) == {"message", "extra"}
    assert message in answer.json()["message"]


def test_a_stale_token_does_not_turn_the_public_leaderboard_into_a_401(local_pool: Any) -> None:
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token 0000000000000000000000000000000000000000")
    assert client.get(BOARD).status_code == 200


def test_the_detail_shows_rank_ranked_cases_and_history_but_never_the_seed(
        owner: Any, other_user: Any, staff_user: Any, local_pool: Any, api_as: Any) -> None:
    ranked(other_user, 1.0)
    mine = ranked(owner, 2.0)
    submissions_rejudge(by=staff_user, reason="problem v2", submission_ids=[str(mine.pk)])
    for viewer in (owner, staff_user):
        answer = api_as(viewer).get(f"/api/v1/submissions/{mine.pk}")
        detail = answer.json()
        assert detail["rank"] == 2
        assert detail["leaderboard"]["state"] == "ranked"
        assert detail["ranked"]["score_ms"] == 2.0
        assert detail["ranked"]["ci95_ms"] == [1.96, 2.04]
        assert [c["case"] for c in detail["ranked"]["cases"]] == ["n=3000017"]
        assert [(j["number"], j["kind"], j["reason"], j["status"]) for j in detail["history"]] == [
            (1, "user", "", "ACCEPTED"), (2, "rejudge", "problem v2", "IN_QUEUE")]
        for seed in Judging.objects.filter(submission=mine).values_list("ranked_seed", flat=True):
            assert str(seed) not in answer.content.decode()
            listed = api_as(viewer).get("/api/v1/submissions", {"all": "true"}).content.decode()
            assert str(seed) not in listed


def test_the_owner_reads_why_a_result_is_held_or_invalidated(owner: Any, other_user: Any, staff_user: Any,
                                                             local_pool: Any, api_as: Any) -> None:
    ranked(other_user, 2.0)
    held = ranked(owner, 0.8)
    standing = api_as(owner).get(f"/api/v1/submissions/{held.pk}").json()["leaderboard"]
    assert standing["state"] == "under_review"
    assert "more than 2x" in standing["reason"]
    assert standing["rank"] is None
    submission_invalidate(submission_id=held.pk, by=staff_user, reason="reads the inputs' cache lines")
    standing = api_as(owner).get(f"/api/v1/submissions/{held.pk}").json()["leaderboard"]
    assert standing == {"state": "invalidated", "reason": "reads the inputs' cache lines", "rank": None}
    assert [r["user"] for r in api_as(owner).get(BOARD).json()["rows"]] == ["other"]


def test_the_owner_withdraws_and_publishes_through_patch(owner: Any, other_user: Any, staff_user: Any,
                                                         local_pool: Any, api_as: Any) -> None:
    mine = ranked(owner, 1.0)
    path = f"/api/v1/submissions/{mine.pk}"
    answer = api_as(owner).patch(path, {"withdrawn": True, "public_source": True}, format="json")
    assert answer.status_code == 200
    assert answer.json()["withdrawn"] is True
    assert answer.json()["public_source"] is True
    assert answer.json()["leaderboard"]["state"] == "withdrawn"
    assert api_as(None).get(BOARD).json()["rows"] == []
    assert api_as(owner).patch(path, {"withdrawn": False}, format="json").json()["rank"] == 1
    for intruder in (other_user, staff_user):
        refused = api_as(intruder).patch(path, {"withdrawn": True}, format="json")
        assert refused.status_code == 404
        assert refused.json()["message"] == "No such submission."
    assert api_as(owner).patch(path, {"withdrawn": "true"}, format="json").status_code == 400
    benchmark = submit(owner, mode="benchmark")
    refused = api_as(owner).patch(f"/api/v1/submissions/{benchmark.pk}", {"withdrawn": True}, format="json")
    assert refused.status_code == 409
    assert "Only leaderboard submissions" in refused.json()["message"]
    form = api_as(owner).patch(f"/api/v1/submissions/{benchmark.pk}", "public_source=true",
                               content_type="application/x-www-form-urlencoded")
    assert form.status_code == 200
    assert form.json()["public_source"] is True


def test_the_problem_says_how_the_score_is_computed(owner: Any, local_pool: Any, api_as: Any) -> None:
    scoring = api_as(owner).get("/api/v1/problems/vector-add").json()["scoring"]
    assert "secret seed" in scoring
    assert "geometric mean" in scoring
    assert "95 % confidence interval" in scoring

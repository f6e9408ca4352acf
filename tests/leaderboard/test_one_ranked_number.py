"""One number ranks: a leaderboard submission's ranked score, a record's once its second judging
confirmed it (the slower of the two). The page, the list of one's submissions, the API and the
leaderboard show that one as ranked; the public benchmark says it does not rank; the first
judging of a record never reads as its ranked result; while the confirmation waits or runs the
submission reads as accepted and confirming, not as judged again from the start."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from leaderboard.rejudge import submission_confirm_record
from submissions.models import Status, Submission
from tests.support import fake_agent
from tests.support.ranked import HOST_CASE, end, submit

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


def result(mean_ms: float, reference_ms: float) -> dict[str, Any]:
    """The agent's RESULT of a leaderboard job: public benchmark 1.5 ms (1.2x), one ranked case."""
    return fake_agent.leaderboard_script([(HOST_CASE, mean_ms, reference_ms)])[-1][1]


def page_of(user: Any, submission: Submission, part: str = "") -> str:
    client = Client()
    client.force_login(user)
    return client.get(f"/submissions/{submission.pk}/{part}").content.decode()


@pytest.fixture
def record(owner: Any) -> Submission:
    """The pool's first ranked result, 1.0 ms at 1.22x: a record, its first judging ended."""
    return end(submit(owner), result(1.0, 1.22))


@pytest.fixture
def confirmed(record: Submission) -> Submission:
    """The record confirmed by a second judging at 1.1 ms and 1.03x: they agree, the slower ranks."""
    assert submission_confirm_record(submission_id=record.pk, judging_id=record.judging_id)
    return end(record, result(1.1, 1.133))


def test_a_confirmed_record_shows_one_ranked_number_on_its_page(owner: Any, confirmed: Submission) -> None:
    page = page_of(owner, confirmed)
    assert 'data-testid="ranked-score">1.100 ms<' in page
    assert page.count("Ranked <strong") == 1
    assert "1.03×" in page and "1.22×" not in page
    assert "Public benchmark</span> <strong data-testid=\"score\">1.500 ms</strong>" in page
    assert "(does not rank)" in page
    assert 'data-testid="ranked-confirming"' not in page
    assert "#2 record confirmation (a second judging on a new secret seed)" in page
    assert "its ranked pass 1.000 ms (a record, judged again to confirm it)" in page  # history, not a rank


def test_the_api_and_the_leaderboard_give_the_same_ranked_number(owner: Any, api_as: Any,
                                                                 confirmed: Submission) -> None:
    api = api_as(owner)
    detail = api.get(f"/api/v1/submissions/{confirmed.pk}").json()
    assert detail["ranked_score_ms"] == pytest.approx(1.1)
    assert detail["ranked"]["score_ms"] == detail["ranked_score_ms"]
    assert detail["ranked"]["speedup"] == pytest.approx(1.03)
    assert detail["ranked_pending"] is False
    assert "ranked" not in detail["summary"]  # the agent's figure of one judging is not a second ranked number
    listed = api.get("/api/v1/submissions").json()["results"][0]
    assert listed["ranked_score_ms"] == detail["ranked_score_ms"] and listed["ranked_pending"] is False
    row = api.get("/api/v1/problems/vector-add/leaderboard").json()["rows"][0]
    assert row["score_ms"] == detail["ranked_score_ms"]
    assert row["speedup"] == detail["ranked"]["speedup"]


def test_my_submissions_shows_the_ranked_score_of_a_leaderboard_run(owner: Any, confirmed: Submission) -> None:
    client = Client()
    client.force_login(owner)
    html = client.get("/submissions/").content.decode()
    assert "1.100 ms" in html and "ranked" in html
    assert "1.500 ms" not in html  # its public benchmark never ranks


def test_a_record_waiting_for_its_confirmation_is_pending_everywhere(owner: Any, api_as: Any,
                                                                     record: Submission) -> None:
    detail = api_as(owner).get(f"/api/v1/submissions/{record.pk}").json()
    assert detail["status"] == Status.ACCEPTED
    assert detail["ranked_pending"] is True
    assert detail["ranked_score_ms"] is None and detail["ranked"] is None
    assert detail["leaderboard"]["state"] == "confirming"
    page = page_of(owner, record)
    assert 'data-testid="ranked-confirming"' in page
    assert 'data-terminal="0"' in page  # the page goes on following it
    listing = Client()
    listing.force_login(owner)
    assert "confirming</span>" in listing.get("/submissions/").content.decode()


def test_while_the_confirmation_runs_the_page_says_accepted_not_benchmarking(owner: Any, api_as: Any,
                                                                             record: Submission) -> None:
    assert submission_confirm_record(submission_id=record.pk, judging_id=record.judging_id)
    Submission.objects.filter(pk=record.pk).update(status=Status.BENCHMARKING)
    live = page_of(owner, record, "live")
    assert 'data-testid="status">Accepted<' in live
    assert "confirming the record" in live
    assert 'data-testid="status">Benchmarking<' not in live
    assert 'data-terminal="0"' in live
    assert ">Cancel</button>" not in live  # the confirmation is the platform's
    detail = api_as(owner).get(f"/api/v1/submissions/{record.pk}").json()
    assert detail["ranked_pending"] is True
    assert detail["leaderboard"]["state"] == "confirming"
    assert detail["ranked_score_ms"] is None

"""The leaderboard on the site: submit to it from the problem page, the ranked pass as its own stage,
the leaderboard's columns and public-source links, and what an owner sees and switches (under review,
withdrawn, invalidated, public source)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from leaderboard.models import LeaderboardEntry, Review
from leaderboard.moderation import submission_invalidate
from submissions.models import Judging, Mode, Submission
from web.progress import submission_progress

pytestmark = pytest.mark.usefixtures("problems_loaded")


def detail(client: Any, submission: Submission) -> str:
    return client.get(reverse("submission-detail", kwargs={"submission_id": submission.pk})).content.decode()


def test_the_problem_page_offers_the_leaderboard_and_says_how_it_scores(client_as: Any, owner: Any,
                                                                       local_pool: Any) -> None:
    client = client_as(owner)
    page = client.get(reverse("problem-detail", kwargs={"slug": "vector-add"})).content.decode()
    assert 'value="leaderboard" class="primary">Submit to leaderboard</button>' in page
    assert "How the score is computed" in page and "secret seed" in page
    answer = client.post(reverse("problem-detail", kwargs={"slug": "vector-add"}),
                         {"mode": "leaderboard", "language": "cpp", "pool": "local", "source": "int x;"})
    assert answer.status_code == 302
    submission = Submission.objects.get()
    assert submission.mode == Mode.LEADERBOARD
    stages = [s.label for s in submission_progress(submission=submission, events=list(submission.events.all())).stages]
    assert stages == ["Queued", "Starting a VM", "Compiling", "Tests", "Benchmark", "Ranked pass", "Result"]


def test_the_ranked_pass_is_its_own_stage_with_its_cases(client_as: Any, owner: Any, make_submission: Any) -> None:
    submission = make_submission(owner, "ranked", score=1.5)
    page = detail(client_as(owner), submission)
    ranked_stage = re.search(r'<li class="stage (\w+)"[^>]*>\s*<span class="stage-label">Ranked pass</span>\s*'
                             r'<span class="stage-detail">([^<]*)</span>', page)
    assert ranked_stage and ranked_stage.groups() == ("done", "1 of 1 cases")
    assert 'data-testid="ranked-score">1.500 ms</strong> ± 30.00 µs · ' in page
    assert '>1.50× faster</span>' in page  # no reference interval stored for this case: no speedup interval
    assert re.search(r"<code>n=3000017</code></th><td class=\"num\">12</td>", page)
    assert 'data-testid="rank">1<' in page
    seed = Judging.objects.get(submission=submission).ranked_seed
    assert str(seed) not in page


def test_the_leaderboard_shows_score_interval_speedup_and_public_source(client_as: Any, owner: Any,
                                                                       other_user: Any, make_submission: Any) -> None:
    mine = make_submission(owner, "ranked", score=1.5)
    theirs = make_submission(other_user, "ranked", score=2.0)
    LeaderboardEntry.objects.filter(submission=theirs).update(public_source=True)
    page = client_as(owner).get(reverse("leaderboard", kwargs={"slug": "vector-add"})).content.decode()
    assert "± 30.00 µs" in page and "1.50×" in page and "How the score is computed" in page
    assert reverse("submission-source", kwargs={"submission_id": theirs.pk}) in page
    assert reverse("submission-source", kwargs={"submission_id": mine.pk}) not in page
    source = client_as(None).get(reverse("submission-source", kwargs={"submission_id": theirs.pk}))
    assert source.status_code == 200 and "solution</span>" in source.content.decode()
    assert client_as(None).get(reverse("submission-source", kwargs={"submission_id": mine.pk})).status_code == 404


def test_an_invalidated_public_source_is_hidden(client_as: Any, owner: Any, staff_user: Any,
                                                make_submission: Any) -> None:
    submission = make_submission(owner, "ranked")
    LeaderboardEntry.objects.filter(submission=submission).update(public_source=True)
    submission_invalidate(submission_id=submission.pk, by=staff_user, reason="copied")
    assert client_as(None).get(reverse("submission-source", kwargs={"submission_id": submission.pk})).status_code == 404


def test_the_owner_sees_review_withdrawal_and_invalidation(client_as: Any, owner: Any, staff_user: Any,
                                                           make_submission: Any) -> None:
    submission = make_submission(owner, "ranked")
    client = client_as(owner)
    LeaderboardEntry.objects.filter(submission=submission).update(review=Review.HELD,
                                                                  review_reason="Held for review: fast.")
    assert "under review</span> Staff look at this result before the leaderboard shows it. Held for review: fast." \
        in detail(client, submission)
    LeaderboardEntry.objects.filter(submission=submission).update(review=Review.APPROVED)
    client.post(reverse("submission-leaderboard", kwargs={"submission_id": submission.pk}), {"withdrawn": "1"})
    page = detail(client, submission)
    assert "withdrawn</span>" in page and "Return to the leaderboard" in page
    assert "Withdrawn from the leaderboard." in page
    client.post(reverse("submission-leaderboard", kwargs={"submission_id": submission.pk}), {"withdrawn": "0"})
    assert 'data-testid="rank">1<' in detail(client, submission)
    submission_invalidate(submission_id=submission.pk, by=staff_user, reason="used a side stream")
    assert "invalidated</span> Staff took it off the leaderboard: used a side stream" in detail(client, submission)


def test_the_owner_publishes_the_source_and_nobody_else_can(client_as: Any, owner: Any, other_user: Any,
                                                            make_submission: Any) -> None:
    submission = make_submission(owner, "accepted")
    url = reverse("submission-leaderboard", kwargs={"submission_id": submission.pk})
    client = client_as(other_user)
    assert client.post(url, {"public_source": "1"}).status_code == 404
    client = client_as(owner)
    client.post(url, {"public_source": "1"})
    assert LeaderboardEntry.objects.get(submission=submission).public_source
    assert "Your source is public" in detail(client, submission)
    answer = client.post(url, {"withdrawn": "1"}, follow=True).content.decode()  # not a leaderboard submission
    assert "Only leaderboard submissions can be withdrawn" in answer
    assert client.get(url).status_code == 405

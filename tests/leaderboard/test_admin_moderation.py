"""Moderation and rejudge from the admin, each behind its permission: approve a held result,
invalidate with a reason (asked on a page of its own) and restore, rejudge the selection, a user's or
a problem's submissions."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from leaderboard.models import Review
from submissions.models import Judging, QueueClass, Submission
from tests.support.ranked import rank, ranked

pytestmark = pytest.mark.usefixtures("problems_loaded")
CHANGELIST = "/admin/submissions/submission/"


@pytest.fixture(autouse=True)
def generous_quota(settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10


def staff_with(make_user: Any, name: str, *codenames: str) -> Client:
    user = make_user(name, staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=["view_submission", "view_problem",
                                                                       *codenames]))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def moderator(make_user: Any) -> Client:
    return staff_with(make_user, "moderator", "moderate_submission", "rejudge_submission")


def act(client: Client, url: str, action: str, *objects: Any, **extra: str) -> Any:
    return client.post(url, {"action": action, "_selected_action": [str(o.pk) for o in objects], **extra})


def test_approve_invalidate_and_restore_from_the_changelist(moderator: Client, owner: Any, other_user: Any,
                                                            local_pool: Any) -> None:
    ranked(other_user, 2.0)
    held = ranked(owner, 0.5)
    act(moderator, CHANGELIST, "approve", held)
    held.refresh_from_db()
    assert held.entry.review == Review.APPROVED
    assert held.entry.reviewed_by.username == "moderator"

    page = act(moderator, CHANGELIST, "invalidate", held)
    assert page.status_code == 200
    assert b'name="reason"' in page.content  # asks why first
    held.refresh_from_db()
    assert held.entry.invalidated_at is None
    again = act(moderator, CHANGELIST, "invalidate", held, confirm="Invalidate submissions", reason="")
    assert again.status_code == 200
    assert b"This field is required" in again.content
    act(moderator, CHANGELIST, "invalidate", held, confirm="Invalidate submissions", reason="patched the timer")
    held.refresh_from_db()
    assert held.entry.invalidated_reason == "patched the timer"
    assert held.entry.invalidated_by.username == "moderator"
    assert Submission.objects.filter(pk=held.pk).exists()

    act(moderator, CHANGELIST, "restore", held)
    held.refresh_from_db()
    assert held.entry.invalidated_at is None
    assert held.entry.invalidated_reason == ""


def test_rejudge_the_selection_a_user_or_a_problem_from_the_admin(moderator: Client, owner: Any, other_user: Any,
                                                                  local_pool: Any) -> None:
    mine, theirs = ranked(owner, 2.0), ranked(other_user, 2.5)
    act(moderator, CHANGELIST, "rejudge", mine, confirm="Rejudge submissions", reason="new anti-cheat rule")
    assert Submission.objects.get(pk=mine.pk).queue_class == QueueClass.REJUDGE
    assert Judging.objects.get(submission=mine, number=3).reason == "new anti-cheat rule"  # 2: its record confirmed

    page = moderator.get(CHANGELIST)
    assert b"Rejudge by user or problem" in page.content
    answer = moderator.post("/admin/submissions/submission/rejudge/", {"user": "other", "reason": "user rule"})
    assert answer.status_code == 302
    assert Judging.objects.get(submission=theirs, number=2).reason == "user rule"
    refused = moderator.post("/admin/submissions/submission/rejudge/", {"user": "ghost", "reason": "x"})
    assert refused.status_code == 200
    assert b"there is no user" in refused.content

    for submission in (mine, theirs):  # their rejudges end, so the problem-wide one takes both
        rank(submission, 2.0)
    act(moderator, "/admin/submissions/problem/", "rejudge_problems", mine.problem, confirm="go", reason="problem v2")
    assert Judging.objects.filter(reason="problem v2").count() == 2


def test_each_action_needs_its_permission(make_user: Any, owner: Any, other_user: Any, local_pool: Any) -> None:
    viewer = staff_with(make_user, "viewer")
    ranked(other_user, 2.0)
    held = ranked(owner, 0.5)  # a record, confirmed by a second judging, then held: over 2x the pool's best
    act(viewer, CHANGELIST, "approve", held)
    act(viewer, CHANGELIST, "invalidate", held, confirm="x", reason="no")
    act(viewer, CHANGELIST, "rejudge", held, confirm="x", reason="no")
    held.refresh_from_db()
    assert held.entry.review == Review.HELD
    assert held.entry.invalidated_at is None
    assert held.judgings.count() == 2
    assert viewer.get("/admin/submissions/submission/rejudge/").status_code == 403
    assert b"Rejudge by user or problem" not in viewer.get(CHANGELIST).content
    moderator_only = staff_with(make_user, "mod", "moderate_submission")
    act(moderator_only, CHANGELIST, "rejudge", held, confirm="x", reason="no")
    assert held.judgings.count() == 2


def test_the_change_page_shows_the_history_but_not_the_seed(admin_client: Client, owner: Any,
                                                            local_pool: Any) -> None:
    submission = ranked(owner, 2.0)
    page = admin_client.get(f"{CHANGELIST}{submission.pk}/change/").content.decode()
    assert "Judgings" in page
    assert "problem v" not in page
    seeds = list(Judging.objects.filter(submission=submission).values_list("ranked_seed", flat=True))
    assert len(seeds) == 2
    assert None not in seeds
    assert not [s for s in seeds if str(s) in page]


def test_the_change_page_reads_as_a_summary_with_its_review_buttons(moderator: Client, make_user: Any, owner: Any,
                                                                   other_user: Any, local_pool: Any) -> None:
    ranked(other_user, 2.0)
    held = ranked(owner, 0.5)  # more than 2x the pool's best: held
    url = f"{CHANGELIST}{held.pk}/change/"
    page = moderator.get(url).content.decode()
    title = page[page.index("<title>"):page.index("</title>")]
    assert f"{str(held.pk)[:8]} · vector-add · ACCEPTED" in title
    assert f" {held.problem_id} " not in title
    summary = page[page.index('data-testid="summary"'):page.index("</section>")]
    assert 'data-testid="verdict">ACCEPTED<' in summary
    assert "500.00 µs</strong> ranked" in summary
    # vector-add's ranked host case moves 12 * 3000017 bytes: 0.36 ms at the host pool's 100 GB/s.
    assert "72.0 % of the local pool's roofline (ranked cases: n=3000017 72.0 %)" in summary
    assert 'data-testid="admin-cost">free' in summary
    assert "under review" in summary
    assert "Approve the held result" in summary
    assert 'name="reason"' in summary
    assert page.index('data-testid="summary"') < page.index("Everything stored")  # the fields come after
    assert '<details' in page[page.index("Everything stored") - 300:]  # folded away

    assert moderator.get(url.replace("change/", "approve/")).status_code == 405
    assert staff_with(make_user, "viewer").post(url.replace("change/", "approve/")).status_code == 403
    assert moderator.post(url.replace("change/", "approve/")).status_code == 302
    held.refresh_from_db()
    assert held.entry.review == Review.APPROVED
    refused = moderator.post(url.replace("change/", "invalidate/"), {"reason": " "}, follow=True)
    assert "Reason: say why" in refused.content.decode()
    moderator.post(url.replace("change/", "invalidate/"), {"reason": "patched the timer"})
    held.refresh_from_db()
    assert held.entry.invalidated_reason == "patched the timer"
    assert "Restore" in moderator.get(url).content.decode()
    moderator.post(url.replace("change/", "restore/"))
    held.refresh_from_db()
    assert held.entry.invalidated_at is None

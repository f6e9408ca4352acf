"""A record's confirmation in a real browser (issue 40): while its second judging runs, the page
says Accepted and that the record is being confirmed, not a regression to Benchmarking; once
confirmed, one number reads as ranked. Screenshots in artifacts/screenshots/40-confirm-*."""

from __future__ import annotations

from typing import Any

import pytest

from leaderboard.rejudge import submission_confirm_record
from submissions.models import Status, Submission
from tests.browser.conftest import shot
from tests.integration.conftest import Stack
from tests.support import fake_agent
from tests.support.ranked import HOST_CASE, end, submit

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.timeout(180)]


def result(mean_ms: float, reference_ms: float) -> dict[str, Any]:
    return fake_agent.leaderboard_script([(HOST_CASE, mean_ms, reference_ms)])[-1][1]


def test_a_records_confirmation_reads_as_accepted_then_one_ranked_number(stack: Stack, local_pool: Any,
                                                                         problems_loaded: None, page: Any,
                                                                         owner: Any) -> None:
    from playwright.sync_api import expect

    web = stack.start_web()
    record = end(submit(owner), result(1.0, 1.22))
    assert submission_confirm_record(submission_id=record.pk, judging_id=record.judging_id)
    Submission.objects.filter(pk=record.pk).update(status=Status.BENCHMARKING)
    page.goto(f"{web}/login/")
    page.get_by_label("Username").fill(owner.username)
    page.get_by_label("Password").fill("correct horse battery")  # tests/conftest.py make_user's
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{web}/")

    page.goto(f"{web}/submissions/{record.pk}/")
    expect(page.get_by_test_id("status")).to_have_text("Accepted")
    expect(page.get_by_test_id("confirming")).to_have_text("confirming the record")
    expect(page.get_by_test_id("ranked-confirming")).to_be_visible()
    shot(page, "40-confirm-running")

    Submission.objects.filter(pk=record.pk).update(status=Status.RANKING)
    end(Submission.objects.get(pk=record.pk), result(1.1, 1.133))
    page.reload()
    expect(page.get_by_test_id("status")).to_have_text("Accepted")
    expect(page.get_by_test_id("ranked-score")).to_have_text("1.100 ms")
    expect(page.get_by_test_id("confirming")).to_have_count(0)
    shot(page, "40-confirm-done")

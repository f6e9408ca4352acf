"""Cancelling: a queued submission ends at once; a running one asks the agent; ended ones 409."""

from __future__ import annotations

from typing import Any

import pytest

from fleets.models import VMInstance, VMState
from submissions.models import Status, Submission
from submissions.services import submission_create
from tests.conftest import finish, read_source

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


@pytest.fixture
def submission(owner: Any) -> Submission:
    return submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))


def cancel(client: Any, submission: Submission) -> Any:
    return client.post(f"/api/v1/submissions/{submission.pk}/cancel")


def test_cancelling_a_queued_submission_ends_it_with_a_reason(submission: Submission, owner: Any,
                                                               api_as: Any) -> None:
    response = cancel(api_as(owner), submission)
    assert response.status_code == 202
    assert response.json()["status"] == "CANCELLED"
    assert response.json()["status_reason"] == "Cancelled by its owner before it started."
    assert submission.events.order_by("-seq").first().type == "RESULT"


def test_cancelling_a_running_submission_asks_the_agent(submission: Submission, owner: Any, api_as: Any,
                                                         local_pool: Any, django_capture_on_commit_callbacks: Any,
                                                         queued_tasks: list) -> None:
    vm = VMInstance.objects.create(pool=local_pool, state=VMState.BUSY, job_ref=str(submission.pk))
    Submission.objects.filter(pk=submission.pk).update(status=Status.BENCHMARKING, vm=vm, attempt=1)
    with django_capture_on_commit_callbacks(execute=True):
        response = cancel(api_as(owner), submission)
    assert response.status_code == 202
    assert response.json()["status"] == "BENCHMARKING"
    submission.refresh_from_db()
    assert submission.cancel_requested
    assert queued_tasks == [("submissions.tasks.cancel_job", str(submission.pk))]
    # Asking twice does not queue a second kill.
    with django_capture_on_commit_callbacks(execute=True):
        cancel(api_as(owner), submission)
    assert len(queued_tasks) == 1


def test_cancelling_a_finished_submission_is_a_conflict(submission: Submission, owner: Any, api_as: Any) -> None:
    finish(submission.pk, Status.ACCEPTED, "done")
    response = cancel(api_as(owner), submission)
    assert response.status_code == 409
    assert response.json() == {"message": "The submission already ended (ACCEPTED).",
                               "extra": {"status": "ACCEPTED"}}


def test_staff_can_cancel_anyones(submission: Submission, staff_user: Any, api_as: Any) -> None:
    response = cancel(api_as(staff_user), submission)
    assert response.json()["status_reason"] == "Cancelled by staff before it started."

"""The periodic sweep: resume runners whose lease lapsed, expire long waits, free orphaned VMs."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from fleets.models import VMInstance, VMState
from submissions.dispatch import submission_dispatch_next
from submissions.models import Status, Submission
from submissions.services import submission_create, submission_requeue_or_fail
from submissions.sweep import submissions_sweep
from tests.conftest import finish, read_source

pytestmark = pytest.mark.usefixtures("problems_loaded")


def submit(user: Any) -> Submission:
    return submission_create(user=user, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))


def test_it_resumes_a_running_submission_whose_lease_lapsed(owner: Any, local_pool: Any,
                                                            queued_tasks: list) -> None:
    submission = submit(owner)
    submission_dispatch_next(pool=local_pool)
    Submission.objects.filter(pk=submission.pk).update(
        lease_owner="dead-worker", lease_expires_at=timezone.now() - timedelta(seconds=1))
    queued_tasks.clear()
    result = submissions_sweep()
    assert result["resumed"] == 1
    assert ("submissions.tasks.run", str(submission.pk)) in queued_tasks


def test_it_leaves_a_live_lease_alone(owner: Any, local_pool: Any, queued_tasks: list) -> None:
    submission = submit(owner)
    submission_dispatch_next(pool=local_pool)
    Submission.objects.filter(pk=submission.pk).update(
        lease_owner="alive", lease_expires_at=timezone.now() + timedelta(seconds=30))
    assert submissions_sweep()["resumed"] == 0


def test_a_submission_that_waited_too_long_ends_with_a_reason(owner: Any, local_pool: Any, settings: Any,
                                                              queued_tasks: list) -> None:
    settings.HIPJUDGE_QUEUE_TIMEOUT = 600
    submission = submit(owner)
    Submission.objects.filter(pk=submission.pk).update(queued_at=timezone.now() - timedelta(minutes=11))
    assert submissions_sweep()["expired"] == 1
    submission.refresh_from_db()
    assert submission.status == Status.ERROR
    assert submission.status_reason.startswith("No VM of pool 'local' became free within 10 min")


def test_it_dispatches_every_pool_with_a_queue(owner: Any, local_pool: Any, queued_tasks: list) -> None:
    submit(owner)
    submissions_sweep()
    assert ("submissions.tasks.dispatch", str(local_pool.pk)) in queued_tasks


def test_it_frees_a_busy_vm_whose_submission_already_ended(owner: Any, local_pool: Any,
                                                           queued_tasks: list) -> None:
    submission = submit(owner)
    VMInstance.objects.create(pool=local_pool, state=VMState.WARM)
    submission_dispatch_next(pool=local_pool)
    finish(submission.pk, Status.ACCEPTED, "ok")
    VMInstance.objects.update(state_changed_at=timezone.now() - timedelta(minutes=5))
    assert submissions_sweep()["vms_released"] == 1
    assert VMInstance.objects.get().state == VMState.WARM


def test_requeue_respects_the_attempt_it_was_asked_about(owner: Any, local_pool: Any) -> None:
    submission = submit(owner)
    submission_dispatch_next(pool=local_pool)
    assert not submission_requeue_or_fail(submission_id=submission.pk, reason="x", attempt=7)
    assert submission_requeue_or_fail(submission_id=submission.pk, reason="VM died.", attempt=1)
    submission.refresh_from_db()
    assert submission.status == Status.IN_QUEUE
    assert submission.vm is None

"""The queue's periodic safety net, run every minute: lapsed runners, expired waits, orphaned VMs."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import cast

from django.conf import settings
from django.db import transaction

from core import clock
from core.queue import enqueue
from fleets.models import VMInstance, VMState
from fleets.services import vm_release
from submissions.dispatch import queues_dispatch
from submissions.models import RUNNING_STATUSES, TERMINAL_STATUSES, QueueClass, Status, Submission
from submissions.services import finish_locked, lock_submission
from submissions.signals import judgings_released


def submissions_sweep() -> dict[str, int]:
    """The periodic safety net: resume submissions whose poller died, end ones that waited too
    long for a VM, and dispatch every pool with a queue (in case a dispatch task was lost)."""
    now = clock.now()
    resumed = expired = 0
    stale = Submission.objects.filter(status__in=RUNNING_STATUSES).filter(
        lease_expires_at__lt=now) | Submission.objects.filter(
        status__in=RUNNING_STATUSES, lease_expires_at__isnull=True,
        dispatched_at__lt=now - timedelta(seconds=settings.HIPJUDGE_POLL_LEASE))
    for submission_id in stale.values_list("id", flat=True):
        enqueue("submissions.tasks.run", str(submission_id), timeout=settings.JOB_TASK_TIMEOUT)
        resumed += 1
    deadline = now - timedelta(seconds=settings.HIPJUDGE_QUEUE_TIMEOUT)
    # Rejudges wait behind users' submissions for as long as that takes: only users' waits expire.
    for submission_id in Submission.objects.filter(status=Status.IN_QUEUE, queued_at__lt=deadline,
                                                   queue_class=QueueClass.USER).values_list("id", flat=True):
        with transaction.atomic():
            submission = lock_submission(submission_id)
            if submission is not None and submission.status == Status.IN_QUEUE:
                minutes = settings.HIPJUDGE_QUEUE_TIMEOUT // 60
                finish_locked(submission, status=Status.ERROR, reason=(
                    f"No VM of pool {submission.pool.name!r} became free within {minutes} min; "
                    "please submit again later."))
                expired += 1
    released = _release_orphaned_vms(now)
    # The leaderboard queues what waits for a judging's end (a record's second judging), in case the
    # runner's own signal was lost.
    records = sum(cast(int, queued) for _, queued in judgings_released.send(sender=Submission, submission_ids=None))
    return {"resumed": resumed, "expired": expired, "vms_released": released, "records": records,
            "pools": queues_dispatch()}


def _release_orphaned_vms(now: datetime) -> int:
    """BUSY VMs whose submission ended or moved on (a worker died between the RESULT and the
    release): give them back, or they would count against max_vms forever."""
    released = 0
    quiet_since = now - timedelta(seconds=settings.HIPJUDGE_POLL_LEASE)
    # DRAINING ones too: a VM drained while serving is torn down by its release.
    for vm in VMInstance.objects.filter(state__in=(VMState.BUSY, VMState.DRAINING), state_changed_at__lt=quiet_since
                                        ).exclude(job_ref=""):
        try:
            submission = Submission.objects.filter(pk=uuid.UUID(vm.job_ref)).only("status", "vm_id").first()
        except ValueError:
            continue  # not a submission's job
        if submission is None or submission.status in TERMINAL_STATUSES or submission.vm_id != vm.pk:
            released += vm_release(vm=vm, job_ref=vm.job_ref)
    return released

"""The queue: hand the next submission of a pool (fair order) to a VM, or leave it waiting.

Many workers may dispatch the same pool at once. A submission is claimed by locking its row
(SKIP LOCKED on PostgreSQL, so dispatchers take different heads instead of waiting) and checking it
is still queued; the VM comes from fleets.services.vm_acquire inside the same transaction, so a
claim that fails gives its VM back by rolling back.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from config.queue import enqueue
from fleets.models import Fleet, VMInstance, VMState
from fleets.services import vm_acquire, vm_release
from submissions.models import RUNNING_STATUSES, TERMINAL_STATUSES, Status, Submission, VMStartKind
from submissions.selectors import queue_order
from submissions.services import EventIn, append_events_locked, finish_locked, lock_submission

log = logging.getLogger(__name__)
HEAD_WINDOW = 16  # how far down the fair order a dispatcher looks for a row nobody else holds


def _lock_if_queued(submission_id: uuid.UUID) -> Submission | None:
    qs = Submission.objects.filter(pk=submission_id, status=Status.IN_QUEUE)
    if connection.features.has_select_for_update_skip_locked:
        return qs.select_for_update(skip_locked=True).first()
    return qs.select_for_update().first()


def submission_dispatch_next(*, fleet: Fleet) -> Submission | None:
    """Dispatch one queued submission of `fleet`; None when the queue is empty or no VM is free."""
    with transaction.atomic():
        submission = None
        for candidate_id in queue_order(fleet_id=fleet.pk, limit=HEAD_WINDOW):
            submission = _lock_if_queued(candidate_id)
            if submission is not None:
                break
        if submission is None:
            return None
        acquired = vm_acquire(fleet=fleet, job_ref=str(submission.pk))
        if acquired is None:
            return None  # at max_vms, all busy: it waits; a released VM triggers the next dispatch
        vm, cold = acquired
        now = timezone.now()
        submission.status = Status.PROVISIONING if cold else Status.COMPILING
        submission.vm, submission.dispatched_at = vm, now
        submission.vm_start = VMStartKind.COLD_START if cold else VMStartKind.WARM_REUSE
        submission.attempt += 1
        submission.lease_owner, submission.lease_expires_at = "", None
        submission.save(update_fields=["status", "vm", "vm_start", "dispatched_at", "attempt",
                                       "lease_owner", "lease_expires_at"])
        append_events_locked(submission, [
            EventIn("VM", {"vm_start": submission.vm_start, "vm": str(vm.pk), "pool": fleet.name,
                           "attempt": submission.attempt}),
            EventIn("STATUS", {"status": submission.status}),
        ])
        submission_id = str(submission.pk)
        transaction.on_commit(lambda: enqueue("submissions.tasks.run", submission_id,
                                              timeout=settings.JOB_TASK_TIMEOUT))
    log.info("dispatched %s to VM %s (%s)", submission.pk, vm.pk, submission.vm_start)
    return submission


def fleet_dispatch(*, fleet_id: uuid.UUID | str, limit: int = 64) -> int:
    """Dispatch as many queued submissions of the pool as there are VMs for; returns how many."""
    fleet = Fleet.objects.filter(pk=fleet_id).first()
    if fleet is None:
        return 0
    count = 0
    while count < limit and submission_dispatch_next(fleet=fleet) is not None:
        count += 1
    return count


def submissions_sweep() -> dict[str, int]:
    """The periodic safety net: resume submissions whose poller died, end ones that waited too
    long for a VM, and dispatch every pool with a queue (in case a dispatch task was lost)."""
    now = timezone.now()
    resumed = expired = 0
    stale = Submission.objects.filter(status__in=RUNNING_STATUSES).filter(
        lease_expires_at__lt=now) | Submission.objects.filter(
        status__in=RUNNING_STATUSES, lease_expires_at__isnull=True,
        dispatched_at__lt=now - timedelta(seconds=settings.HIPJUDGE_POLL_LEASE))
    for submission_id in stale.values_list("id", flat=True):
        enqueue("submissions.tasks.run", str(submission_id), timeout=settings.JOB_TASK_TIMEOUT)
        resumed += 1
    deadline = now - timedelta(seconds=settings.HIPJUDGE_QUEUE_TIMEOUT)
    for submission_id in Submission.objects.filter(status=Status.IN_QUEUE, queued_at__lt=deadline).values_list(
            "id", flat=True):
        with transaction.atomic():
            submission = lock_submission(submission_id)
            if submission is not None and submission.status == Status.IN_QUEUE:
                minutes = settings.HIPJUDGE_QUEUE_TIMEOUT // 60
                finish_locked(submission, status=Status.ERROR, reason=(
                    f"No VM of pool {submission.fleet.name!r} became free within {minutes} min; "
                    "please submit again later."))
                expired += 1
    released = _release_orphaned_vms(now)
    fleets = set(Submission.objects.filter(status=Status.IN_QUEUE).values_list("fleet_id", flat=True))
    for fleet_id in fleets:
        enqueue("submissions.tasks.dispatch", str(fleet_id), save=False)
    return {"resumed": resumed, "expired": expired, "vms_released": released, "pools": len(fleets)}


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


def lease_claim(*, submission_id: uuid.UUID | str, owner: str, seconds: float) -> bool:
    """Take (or renew) the right to poll this submission: a conditional UPDATE, so exactly one
    poller wins; an expired lease is free for the taking."""
    now = timezone.now()
    until = now + timedelta(seconds=seconds)
    base = Submission.objects.filter(pk=submission_id, status__in=RUNNING_STATUSES)
    claimed = base.filter(lease_owner=owner).update(lease_expires_at=until)
    if not claimed:
        claimed = (base.filter(lease_owner="") | base.filter(lease_expires_at__lt=now)).update(
            lease_owner=owner, lease_expires_at=until)
    return bool(claimed)


def lease_release(*, submission_id: uuid.UUID | str, owner: str) -> None:
    # Expired at once: if the submission is still running, the next sweep resumes it.
    Submission.objects.filter(pk=submission_id, lease_owner=owner).update(
        lease_owner="", lease_expires_at=timezone.now())

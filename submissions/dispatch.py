"""The queue: hand the next submission of a pool (fair order) to a VM, or leave it waiting.

Many workers may dispatch the same pool at once. A submission is claimed by locking its row
(SKIP LOCKED on PostgreSQL, so dispatchers take different heads instead of waiting) and checking it
is still queued; billing may refuse to hand out a VM of a paid pool (out of credit); the VM comes
from fleets.services.vm_acquire inside the same transaction, so a claim that fails gives its VM back
by rolling back.
"""

from __future__ import annotations

import logging
import uuid

from django.conf import settings
from django.db import transaction

from billing.guards import vm_acquire_guard
from billing.selectors import pool_is_paid
from core import clock
from core.locks import locked
from core.logs import log_event
from core.queue import enqueue
from fleets.models import Pool
from fleets.services import vm_acquire
from submissions.models import Judging, Status, Submission, VMStartKind
from submissions.selectors import queue_length, queue_order
from submissions.services import EventIn, append_events_locked, log_status

log = logging.getLogger(__name__)
HEAD_WINDOW = 16  # how far down the fair order a dispatcher looks for a row nobody else holds


def _lock_if_queued(submission_id: uuid.UUID) -> Submission | None:
    return locked(Submission.objects.filter(pk=submission_id, status=Status.IN_QUEUE), skip_locked=True).first()


def submission_dispatch_next(*, pool: Pool) -> Submission | None:
    """Dispatch one queued submission of `pool`; None when the queue is empty or no VM is free."""
    with transaction.atomic():
        submission = None
        head = queue_order(pool_id=pool.pk, limit=HEAD_WINDOW)
        for candidate_id in head:
            submission = _lock_if_queued(candidate_id)
            if submission is not None:
                break
        if submission is None:
            return None
        refusal = vm_acquire_guard(pool=pool)
        if refusal:
            log_event(log, "pool.refused", "pool %s hands out no VM: %s", pool.name, refusal, pool=pool.pk)
            return None
        queued = len(head) if len(head) < HEAD_WINDOW else queue_length(pool_id=pool.pk)
        avoid = Judging.objects.filter(pk=submission.judging_id).values_list("avoid_vm", flat=True).first() \
            if submission.judging_id else None
        acquired = vm_acquire(pool=pool, job_ref=str(submission.pk), queued=queued, avoid_vm=avoid)
        if acquired is None:
            return None  # it waits (the pool's policy): a VM that goes warm triggers the next dispatch
        vm, cold = acquired
        now = clock.now()
        submission.status = Status.PROVISIONING if cold else Status.COMPILING
        submission.vm, submission.dispatched_at = vm, now
        submission.vm_start = VMStartKind.COLD_START if cold else VMStartKind.WARM_REUSE
        submission.attempt += 1
        submission.lease_owner, submission.lease_expires_at = "", None
        submission.save(update_fields=["status", "vm", "vm_start", "dispatched_at", "attempt",
                                       "lease_owner", "lease_expires_at"])
        append_events_locked(submission, [
            EventIn("VM", {"vm_start": submission.vm_start, "vm": str(vm.pk), "pool": pool.name,
                           "attempt": submission.attempt}),
            EventIn("STATUS", {"status": submission.status}),
        ])
        log_status(submission, submission.status)
        submission_id = str(submission.pk)
        transaction.on_commit(lambda: enqueue("submissions.tasks.run", submission_id,
                                              timeout=settings.JOB_TASK_TIMEOUT))
    return submission


def pool_dispatch(*, pool_id: uuid.UUID | str, limit: int = 64) -> int:
    """Dispatch as many queued submissions of the pool as there are VMs for; returns how many."""
    pool = Pool.objects.filter(pk=pool_id).first()
    if pool is None:
        return 0
    count = 0
    while count < limit and submission_dispatch_next(pool=pool) is not None:
        count += 1
    return count


def queues_dispatch(*, paid_only: bool = False) -> int:
    """Enqueue a dispatch for every pool with queued submissions (only the paid ones: after a new
    credit grant). Returns how many pools."""
    pool_ids = set(Submission.objects.filter(status=Status.IN_QUEUE).values_list("pool_id", flat=True))
    if paid_only:
        pool_ids = {pool.pk for pool in Pool.objects.filter(pk__in=pool_ids) if pool_is_paid(pool)}
    for pool_id in pool_ids:
        enqueue("submissions.tasks.dispatch", str(pool_id), save=False)
    return len(pool_ids)

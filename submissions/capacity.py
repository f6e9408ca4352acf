"""A pool that cannot get a VM (no capacity at the provider, or none ready in time).

Retrying at once would fail the same way and keep users waiting for nothing, so the submission the
VM was started for, and every submission queued for the pool, end REJECTED with the VM's sentence
("No MI300X capacity on amddevcloud right now ...") — unless another live VM of the pool can take
them, in which case the one is queued again and the queue simply waits for that VM.
"""

from __future__ import annotations

import logging
import uuid

from django.db import transaction

from core.logs import log_event
from fleets.models import SERVING_VM_STATES, VMInstance
from submissions.models import ACTIVE_STATUSES, Status, Submission
from submissions.services import finish_locked, lock_submission, submission_requeue_or_fail

log = logging.getLogger(__name__)


def submissions_refuse_for_capacity(*, pool_id: uuid.UUID | str, reason: str,
                                    submission_id: uuid.UUID | str | None = None,
                                    vm_id: uuid.UUID | str | None = None, attempt: int | None = None) -> int:
    """The VM `vm_id` of pool `pool_id` could not be had. Returns how many submissions ended."""
    others = VMInstance.objects.filter(pool_id=pool_id, state__in=SERVING_VM_STATES)
    if vm_id is not None:
        others = others.exclude(pk=vm_id)
    if others.exists():
        if submission_id is not None:  # back in line for the VM that works; REJECTED if out of attempts
            submission_requeue_or_fail(submission_id=submission_id, vm_id=vm_id, attempt=attempt, reason=reason,
                                       give_up_status=Status.REJECTED)
        return 0
    ended = 0
    if submission_id is not None:
        with transaction.atomic():
            submission = lock_submission(submission_id)
            if (submission is not None and submission.status in ACTIVE_STATUSES
                    and (vm_id is None or str(submission.vm_id) == str(vm_id))
                    and (attempt is None or submission.attempt == attempt)):
                cancelled = submission.cancel_requested
                finish_locked(submission, status=Status.CANCELLED if cancelled else Status.REJECTED,
                              reason=f"Cancelled; meanwhile: {reason}" if cancelled else reason)
                ended += 1
    for queued_id in Submission.objects.filter(pool_id=pool_id, status=Status.IN_QUEUE).values_list("pk", flat=True):
        with transaction.atomic():
            submission = lock_submission(queued_id)
            if submission is not None and submission.status == Status.IN_QUEUE:
                finish_locked(submission, status=Status.REJECTED, reason=reason)
                ended += 1
    log_event(log, "pool.no_capacity", "pool %s has no capacity: %d submission(s) rejected (%s)", pool_id, ended,
              reason, level=logging.WARNING, pool=pool_id, vm=vm_id, count=ended)
    return ended

"""Reactions to fleets', billing's and limits' signals (they never write submissions; we listen), and
the edits that empty the lookup cache."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.db.models.signals import post_delete, post_save

from billing.signals import credit_granted
from core.queue import enqueue
from fleets.models import ENDED_VM_STATES, Pool, VMState
from fleets.signals import vm_lost, vm_state_changed
from limits.signals import user_suspended
from submissions.capacity import submissions_refuse_for_capacity
from submissions.dispatch import queues_dispatch
from submissions.lookups import lookups_clear
from submissions.models import Problem, ProblemVersion
from submissions.services import submission_requeue_or_fail, user_submissions_cancel

log = logging.getLogger(__name__)

# A VM in one of these states just made room in its pool (or is ready for the next job).
CAPACITY_FREED = (VMState.WARM, *ENDED_VM_STATES)


def on_vm_lost(sender: Any, *, vm_id: Any, pool_id: Any, job_ref: str, reason: str, no_capacity: bool,
               **kwargs: Any) -> None:
    try:
        uuid.UUID(job_ref)
    except ValueError:
        return  # not a submission's job
    if no_capacity:
        submissions_refuse_for_capacity(pool_id=pool_id, submission_id=job_ref, vm_id=vm_id, reason=reason)
        return
    submission_requeue_or_fail(submission_id=job_ref, vm_id=vm_id, reason=reason)


def on_vm_state_changed(sender: Any, vm_id: Any, pool_id: Any, old: str | None, new: str, **kwargs: Any) -> None:
    if new in CAPACITY_FREED:
        enqueue("submissions.tasks.dispatch", str(pool_id), save=False)


def on_credit_granted(sender: Any, **kwargs: Any) -> None:
    queues_dispatch(paid_only=True)  # paid pools may hand out VMs again


def on_user_suspended(sender: Any, user_id: Any, by: Any, **kwargs: Any) -> None:
    cancelled = user_submissions_cancel(user_id=user_id, by=by)
    log.warning("user %s suspended: %d active submission(s) cancelled", user_id, cancelled)


vm_lost.connect(on_vm_lost, dispatch_uid="submissions.on_vm_lost")
# An edit to a problem or a pool in this process empties the submission lookups' cache at once.
for _model in (Problem, ProblemVersion, Pool):
    post_save.connect(lookups_clear, sender=_model, dispatch_uid=f"submissions.lookups.save.{_model.__name__}")
    post_delete.connect(lookups_clear, sender=_model, dispatch_uid=f"submissions.lookups.delete.{_model.__name__}")
vm_state_changed.connect(on_vm_state_changed, dispatch_uid="submissions.on_vm_state_changed")
credit_granted.connect(on_credit_granted, dispatch_uid="submissions.on_credit_granted")
user_suspended.connect(on_user_suspended, dispatch_uid="submissions.on_user_suspended")

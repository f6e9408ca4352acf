"""The runner's lease on a submission: exactly one runner polls a dispatched submission, and a
runner that died lets go by letting its lease lapse (the sweep then starts a new one)."""

from __future__ import annotations

import uuid
from datetime import timedelta

from core import clock
from submissions.models import RUNNING_STATUSES, Submission


def lease_claim(*, submission_id: uuid.UUID | str, owner: str, seconds: float) -> bool:
    """Take (or renew) the right to poll this submission: a conditional UPDATE, so exactly one
    poller wins; an expired lease is free for the taking."""
    now = clock.now()
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
        lease_owner="", lease_expires_at=clock.now())

"""The runner's lease on a submission: exactly one runner polls a dispatched submission, and a
runner that died lets go by letting its lease lapse (the sweep then starts a new one)."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta
from types import TracebackType

from django.db import DatabaseError, connection

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


class LeaseHeartbeat:
    """Renew a lease from a thread while the runner blocks in one long call (a cold start takes
    minutes). One lease taken for the whole start-up would outlive a runner killed mid-way: the sweep
    could not resume the job before the reaper failed the VM for starting too slowly, and the job
    would cost an attempt. With the heartbeat a dead runner's lease lapses within `seconds`."""

    def __init__(self, *, submission_id: uuid.UUID | str, owner: str, seconds: float) -> None:
        self.submission_id, self.owner, self.seconds = submission_id, owner, seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"lease-{submission_id}", daemon=True)

    def __enter__(self) -> LeaseHeartbeat:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()

    def wait_next_beat(self) -> bool:
        """Wait a third of the lease (so two beats may fail before it lapses); True once the runner is
        done. Tests step the beats here, on their own clock, instead of waiting."""
        return self._stop.wait(self.seconds / 3)

    def _beat(self) -> None:
        try:
            while not self.wait_next_beat():
                try:
                    if not lease_claim(submission_id=self.submission_id, owner=self.owner, seconds=self.seconds):
                        return  # lost (cancelled, finished, taken over): the runner finds out itself
                except DatabaseError:
                    continue  # away for now; the next beat tries again before the lease lapses
        finally:
            connection.close()  # this thread's own connection

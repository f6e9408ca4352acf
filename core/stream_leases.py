"""Leases of open event streams: one cap per user across every web process.

A stream claims one of its user's HIPJUDGE_SSE_MAX_PER_USER slots (a StreamLease row; the unique
(user, slot) pair decides a race between processes, in the database they all share, on SQLite as on
PostgreSQL), its process renews the leases of its open streams together (one UPDATE), and an ended
stream deletes its own. A process that is killed leaves its rows behind: they expire
HIPJUDGE_SSE_LEASE seconds after their last renewal, and the next claim of that user reuses them.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction

from core import clock
from core.models import StreamLease


def renew_interval_s() -> float:
    """How often a process renews its leases: three renewals per lease, so that one missed (a busy
    database) does not let a live stream's lease expire."""
    return settings.HIPJUDGE_SSE_LEASE / 3


def stream_lease_claim(*, user_id: int, cap: int) -> int | None:
    """The id of a new lease for one more stream of this user, or None when all `cap` slots are held."""
    now = clock.now()
    StreamLease.objects.filter(user_id=user_id, expires_at__lte=now).delete()
    held = set(StreamLease.objects.filter(user_id=user_id).values_list("slot", flat=True))
    expires_at = now + timedelta(seconds=settings.HIPJUDGE_SSE_LEASE)
    for slot in range(cap):
        if slot in held:
            continue
        try:
            with transaction.atomic():
                return StreamLease.objects.create(user_id=user_id, slot=slot, expires_at=expires_at).pk
        except IntegrityError:  # another process took this slot since the read: try the next one
            continue
    return None


def stream_leases_renew(*, lease_ids: Collection[int]) -> int:
    """Push back the expiry of these leases; how many still existed. The expired leases of every
    user go too, so that those of a killed process do not stay until their user comes back."""
    if not lease_ids:
        return 0
    now = clock.now()
    StreamLease.objects.filter(expires_at__lte=now).delete()
    expires_at = now + timedelta(seconds=settings.HIPJUDGE_SSE_LEASE)
    return StreamLease.objects.filter(pk__in=list(lease_ids)).update(expires_at=expires_at)


def stream_lease_release(*, lease_id: int) -> None:
    StreamLease.objects.filter(pk=lease_id).delete()

"""Writes of limits: staff suspend a user (nothing more is taken from them, and what they have queued
or running is cancelled) and lift the suspension."""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction

from core.exceptions import ApplicationError, NotFoundError
from core.locks import locked
from limits.models import Suspension
from limits.signals import user_suspended

log = logging.getLogger(__name__)


def user_suspend(*, user_id: Any, reason: str, by: User) -> Suspension:
    """Suspend a user (again: the reason is replaced). Their row is locked like a new submission's,
    so a submission in flight either commits first (and is cancelled by the receivers of
    user_suspended, sent once the suspension is written) or sees the suspension."""
    if str(user_id) == str(by.pk):
        raise ApplicationError("You cannot suspend yourself.")
    reason = reason.strip() or "Suspended by the staff."
    with transaction.atomic():
        if not locked(get_user_model().objects.filter(pk=user_id)).exists():
            raise NotFoundError("No such user.")
        suspension, _ = Suspension.objects.update_or_create(user_id=user_id,
                                                            defaults={"reason": reason, "created_by": by})
    log.warning("user %s suspended by %s (%s)", user_id, by.pk, reason)
    user_suspended.send(sender=Suspension, user_id=user_id, by=by)
    return suspension


def user_unsuspend(*, user_id: Any, by: User) -> bool:
    """Lift a suspension; False when the user was not suspended."""
    deleted, _ = Suspension.objects.filter(user_id=user_id).delete()
    if deleted:
        log.warning("user %s unsuspended by %s", user_id, by.pk)
    return bool(deleted)

"""Event counters shared by every process (core.models.EventCounter), read by /metrics."""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction
from django.db.models import F

from core.models import EventCounter

log = logging.getLogger(__name__)

# Counter names (label: the error class).
DSTACK_CALL_ERRORS = "dstack_call_errors"


def counter_add(*, name: str, label: str = "", by: int = 1) -> None:
    """Add to a counter. Never raises: counting an event must not break the code that saw it."""
    try:
        rows = EventCounter.objects.filter(name=name, label=label)
        if rows.update(value=F("value") + by):
            return
        try:
            with transaction.atomic():
                EventCounter.objects.create(name=name, label=label, value=by)
        except IntegrityError:  # another process created it first
            rows.update(value=F("value") + by)
    except Exception as exc:
        log.warning("counter %s{%s} not updated (%s)", name, label, type(exc).__name__)


def counter_values(*, name: str) -> dict[str, int]:
    return dict(EventCounter.objects.filter(name=name).values_list("label", "value"))

"""The one place that hands work to django-q2, so tests can capture it and options stay uniform."""

from __future__ import annotations

import logging
from typing import Any

from django_q.tasks import async_task

log = logging.getLogger(__name__)


def enqueue(func: str, *args: Any, timeout: int | None = None, save: bool = True) -> str | None:
    """Queue `func(*args)` (a dotted path) on the cluster. Never raises: a lost enqueue is recovered
    by the periodic sweep, while an exception here would fail the request that triggered it."""
    options: dict[str, Any] = {"save": save}
    if timeout is not None:
        options["timeout"] = timeout
    try:
        return async_task(func, *args, q_options=options)
    except Exception:
        log.exception("could not enqueue %s%r; the sweep will pick it up", func, args)
        return None

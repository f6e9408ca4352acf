"""Worker heartbeats: how /readyz knows that some worker cluster takes tasks.

A cluster beats when its worker processes start (django-q2's post_spawn signal) and every minute
through the `core.tasks.heartbeat` schedule, which also proves that the broker delivers tasks.
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Max

from core import clock
from core.models import WorkerHeartbeat

log = logging.getLogger(__name__)
KEEP = timedelta(days=1)  # rows of clusters gone for longer are deleted


def cluster_name() -> str:
    """`<host>:<pid>` of the qcluster sentinel this worker process belongs to."""
    return f"{socket.gethostname()}:{os.getppid()}"


def heartbeat_beat(*, name: str | None = None, now: datetime | None = None) -> None:
    now = now or clock.now()
    WorkerHeartbeat.objects.update_or_create(name=name or cluster_name(), defaults={"at": now})
    WorkerHeartbeat.objects.filter(at__lt=now - KEEP).delete()


def heartbeat_latest() -> datetime | None:
    return WorkerHeartbeat.objects.aggregate(latest=Max("at"))["latest"]


def on_worker_spawned(sender: Any, **kwargs: Any) -> None:
    """A new worker process: beat at once, so a cluster that just started counts before its first
    scheduled beat. Never raises: a worker must start even while the database is away."""
    try:
        heartbeat_beat()
    except Exception as exc:
        log.warning("worker heartbeat not written (%s)", type(exc).__name__)

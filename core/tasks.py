"""django-q2 entry points of core: the workers' heartbeat."""

from __future__ import annotations

from core.heartbeat import heartbeat_beat

# Collected by `manage.py setup_schedules`: name -> (function, minutes between runs).
SCHEDULES = {
    "core: worker heartbeat": ("core.tasks.heartbeat", 1),
}


def heartbeat() -> None:
    heartbeat_beat()

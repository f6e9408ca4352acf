"""Declare every periodic job; running it again updates them, never duplicates.

Each app lists its own jobs in `SCHEDULES` of its tasks module: name -> (function, minutes).
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand
from django_q.models import Schedule


def collect_schedules() -> dict[str, tuple[str, int]]:
    """Every installed app's `<app>.tasks.SCHEDULES`, merged."""
    schedules: dict[str, tuple[str, int]] = {}
    for config in apps.get_app_configs():
        name = f"{config.name}.tasks"
        if find_spec(name) is not None:
            schedules.update(getattr(import_module(name), "SCHEDULES", {}))
    return schedules


class Command(BaseCommand):
    help = "Create or update the django-q2 schedules of HIPJudge's periodic jobs."

    def handle(self, *args: Any, **opts: Any) -> None:
        for name, (func, minutes) in collect_schedules().items():
            _, created = Schedule.objects.update_or_create(name=name, defaults={
                "func": func, "schedule_type": Schedule.MINUTES, "minutes": minutes, "repeats": -1})
            self.stdout.write(f"{'created' if created else 'updated'} schedule {name!r}: every {minutes} min")

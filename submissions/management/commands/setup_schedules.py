"""Declare every periodic job in one place; running it again updates them, never duplicates."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django_q.models import Schedule

# name -> (function, minutes between runs)
SCHEDULES = {
    "submissions: sweep (resume, expire, dispatch)": ("submissions.tasks.sweep", 1),
    "fleets: reap idle VMs": ("fleets.tasks.reap_idle", 1),
    "fleets: reconcile VMs with reality": ("fleets.tasks.reconcile", 2),
    "billing: accrue VM time, alerts, hard stop": ("billing.tasks.accrue", 1),
    "billing: reconcile dstack pools (yesterday)": ("billing.tasks.reconcile", 60),
}


class Command(BaseCommand):
    help = "Create or update the django-q2 schedules of HIPJudge's periodic jobs."

    def handle(self, *args: Any, **opts: Any) -> None:
        for name, (func, minutes) in SCHEDULES.items():
            _, created = Schedule.objects.update_or_create(name=name, defaults={
                "func": func, "schedule_type": Schedule.MINUTES, "minutes": minutes, "repeats": -1})
            self.stdout.write(f"{'created' if created else 'updated'} schedule {name!r}: every {minutes} min")

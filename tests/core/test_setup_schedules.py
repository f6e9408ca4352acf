"""`manage.py setup_schedules` declares every app's periodic jobs once, however often it runs."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.utils.module_loading import import_string
from django_q.models import Schedule

from core.management.commands.setup_schedules import collect_schedules

pytestmark = pytest.mark.django_db


def test_each_app_declares_its_own_jobs_and_every_job_exists() -> None:
    schedules = collect_schedules()
    assert {func.split(".")[0] for func, _ in schedules.values()} == {"core", "submissions", "fleets", "billing"}
    for func, minutes in schedules.values():
        assert callable(import_string(func))
        assert minutes >= 1


def test_running_it_twice_updates_instead_of_duplicating() -> None:
    call_command("setup_schedules", stdout=StringIO())
    call_command("setup_schedules", stdout=StringIO())
    assert Schedule.objects.count() == len(collect_schedules()) == 7

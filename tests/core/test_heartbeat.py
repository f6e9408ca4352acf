"""Worker heartbeats (for /readyz) and shared event counters (for /metrics)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import OperationalError
from django.utils import timezone
from django_q.signals import post_spawn

from core.counters import counter_add, counter_values
from core.heartbeat import heartbeat_beat, heartbeat_latest
from core.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db


def test_a_worker_process_beats_when_it_starts() -> None:
    assert heartbeat_latest() is None
    before = timezone.now()
    post_spawn.send(sender="django_q", proc_name="Process-1")
    beat = WorkerHeartbeat.objects.get()
    assert ":" in beat.name
    assert before <= beat.at <= timezone.now()


def test_a_worker_starts_even_when_its_beat_cannot_be_written(monkeypatch: Any) -> None:
    def down(**kwargs: Any) -> None:
        raise OperationalError("no database")

    monkeypatch.setattr("core.heartbeat.heartbeat_beat", down)
    post_spawn.send(sender="django_q", proc_name="Process-1")  # does not raise


def test_each_cluster_keeps_one_row_and_day_old_ones_go() -> None:
    now = timezone.now()
    heartbeat_beat(name="gone:1", now=now - timedelta(days=2))
    heartbeat_beat(name="a:1", now=now - timedelta(seconds=30))
    heartbeat_beat(name="a:1", now=now)
    assert list(WorkerHeartbeat.objects.values_list("name", flat=True)) == ["a:1"]
    assert heartbeat_latest() == now


def test_counters_add_up_per_label() -> None:
    counter_add(name="errors", label="A")
    counter_add(name="errors", label="A", by=2)
    counter_add(name="errors", label="B")
    assert counter_values(name="errors") == {"A": 3, "B": 1}

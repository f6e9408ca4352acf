"""What several processes share about the platform itself: worker heartbeats and event counters."""

from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    """The last sign of life of one worker cluster (`<host>:<pid of its qcluster sentinel>`)."""

    name = models.CharField(max_length=200, primary_key=True)
    at = models.DateTimeField()

    class Meta:
        ordering = ["-at"]

    def __str__(self) -> str:
        return f"{self.name} @ {self.at:%Y-%m-%d %H:%M:%S}"


class EventCounter(models.Model):
    """A monotonic count of something no row records (e.g. failed dstack calls), kept in the
    database so that every web and worker process adds to the same number and a scrape of any web
    process reads it whole."""

    name = models.CharField(max_length=100)
    label = models.CharField(max_length=200, blank=True)
    value = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["name", "label"]
        constraints = [models.UniqueConstraint(fields=["name", "label"], name="event_counter_unique")]

    def __str__(self) -> str:
        return f"{self.name}{{{self.label}}} = {self.value}"

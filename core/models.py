"""What several processes share about the platform itself: worker heartbeats, event counters and
the leases of open event streams."""

from __future__ import annotations

from django.conf import settings
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


class StreamLease(models.Model):
    """One open event stream of a user, held by whichever web process serves it (core.stream_leases).

    A user's streams take the slots 0..cap-1; the unique (user, slot) pair makes the cap hold across
    every web process, and a lease that its process stops renewing (the process was killed) frees
    its slot once it expires."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    slot = models.PositiveSmallIntegerField()
    expires_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "slot"], name="stream_lease_one_per_slot")]

    def __str__(self) -> str:
        return f"stream {self.slot} of user {self.user_id} until {self.expires_at:%H:%M:%S}"

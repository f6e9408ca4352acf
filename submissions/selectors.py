"""Reads for submissions and problems; every lookup is scoped to the caller."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import F, Q, QuerySet, Window
from django.db.models.functions import RowNumber

from submissions.models import Problem, Status, Submission, SubmissionEvent


def problem_list() -> QuerySet[Problem]:
    return Problem.objects.filter(is_active=True, current_version__isnull=False).order_by("slug")


def problem_get(*, slug: str) -> Problem | None:
    return problem_list().select_related("current_version").filter(slug=slug).first()


def _visible_to(user: User | AnonymousUser) -> QuerySet[Submission]:
    if not user.is_authenticated:
        return Submission.objects.none()
    if getattr(user, "is_staff", False):
        return Submission.objects.all()
    return Submission.objects.filter(user=user)


def submission_list(*, user: User, filters: dict[str, Any] | None = None,
                    everyone: bool = False) -> QuerySet[Submission]:
    """The caller's own submissions (staff may ask for everyone's), newest first."""
    qs = _visible_to(user) if everyone else Submission.objects.filter(user=user)
    filters = filters or {}
    if filters.get("status"):
        qs = qs.filter(status__in=[s.strip().upper() for s in str(filters["status"]).split(",")])
    if filters.get("problem"):
        qs = qs.filter(problem__slug=filters["problem"])
    for key in ("language", "mode"):
        if filters.get(key):
            qs = qs.filter(**{key: filters[key]})
    if filters.get("pool"):
        qs = qs.filter(fleet__name=filters["pool"])
    return (qs.select_related("problem", "problem_version", "fleet", "user")
            .defer("source", "problem_version__bundle", "problem_version__statement", "problem_version__templates")
            .order_by("-created_at"))


def submission_get(*, user: User | AnonymousUser, submission_id: uuid.UUID | str) -> Submission | None:
    """Owner, or staff; anyone else gets None (callers answer 404 so ids do not leak)."""
    try:
        uuid.UUID(str(submission_id))
    except ValueError:
        return None
    return _visible_to(user).select_related("problem", "problem_version", "fleet", "vm", "user").filter(
        pk=submission_id).first()


def submission_events(*, submission: Submission, after: int = 0) -> QuerySet[SubmissionEvent]:
    return submission.events.filter(seq__gt=after).order_by("seq")


def queue_order(*, fleet_id: uuid.UUID | str, limit: int | None = None) -> list[uuid.UUID]:
    """Queued submissions of a pool in dispatch order: fair across users (each user's oldest
    first, round-robin between users), then oldest first."""
    qs = (Submission.objects.filter(fleet_id=fleet_id, status=Status.IN_QUEUE)
          .annotate(user_rank=Window(RowNumber(), partition_by=[F("user_id")],
                                     order_by=[F("created_at").asc(), F("id").asc()]))
          .order_by("user_rank", "created_at", "id").values_list("id", flat=True))
    return list(qs[:limit] if limit else qs)


def queue_position(*, submission: Submission) -> int | None:
    """1-based place in the pool's queue, or None when it is not queued. Only the rows that can
    be ahead of it (user rank up to its own) leave the database."""
    if submission.status != Status.IN_QUEUE:
        return None
    queued = Submission.objects.filter(fleet_id=submission.fleet_id, status=Status.IN_QUEUE)
    rank = 1 + queued.filter(user_id=submission.user_id).filter(
        Q(created_at__lt=submission.created_at) | Q(created_at=submission.created_at, id__lt=submission.pk)).count()
    ranked = queued.annotate(user_rank=Window(RowNumber(), partition_by=[F("user_id")],
                                              order_by=[F("created_at").asc(), F("id").asc()]))
    me = (rank, submission.created_at, submission.pk)
    return 1 + sum(1 for row in ranked.filter(user_rank__lte=rank).values_list("user_rank", "created_at", "id")
                   if row < me)


def queue_positions(*, submissions: list[Submission]) -> dict[uuid.UUID, int]:
    """Positions for a page of submissions with one query per pool that has queued ones."""
    positions: dict[uuid.UUID, int] = {}
    for fleet_id in {s.fleet_id for s in submissions if s.status == Status.IN_QUEUE}:
        for index, sid in enumerate(queue_order(fleet_id=fleet_id), start=1):
            positions[sid] = index
    return positions

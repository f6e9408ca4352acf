"""Reads for submissions and problems; every lookup is scoped to the caller."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import connection
from django.db.models import Count, F, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from submissions.models import ACTIVE_STATUSES, Problem, Status, Submission, SubmissionEvent


def user_quota(*, user_id: Any, now: datetime | None = None) -> dict[str, int]:
    """A user's quotas and how much of them is used, in one query: submissions in the last 24 hours
    and active ones (refusals do not count), and all submissions ever."""
    now = now or timezone.now()
    counts = Submission.objects.filter(user_id=user_id).exclude(status=Status.REJECTED).aggregate(
        daily=Count("pk", filter=Q(created_at__gte=now - timedelta(days=1))),
        active=Count("pk", filter=Q(status__in=ACTIVE_STATUSES)),
        total=Count("pk"))
    return {"daily_limit": settings.HIPJUDGE_QUOTA_DAILY, "daily_used": counts["daily"],
            "concurrent_limit": settings.HIPJUDGE_QUOTA_CONCURRENT, "concurrent_used": counts["active"],
            "total": counts["total"]}


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
    """1-based place in the pool's queue (the fair order of queue_order), or None when it is not
    queued. One query that returns one number: the rows ahead are counted per user, without
    ranking (sorting) the whole queue or sending it to Python.

    With r = 1 + the owner's queued submissions older than this one (its rank), a user with n
    queued of which a are older than it has ahead of it: r when a >= r (their first r), else
    min(n, r - 1). The sum over users, plus one, is the position."""
    if submission.status != Status.IN_QUEUE:
        return None
    table = connection.ops.quote_name(Submission._meta.db_table)
    sql = f"""
        WITH me AS (
            SELECT m.fleet_id, m.created_at, m.id,
                   1 + (SELECT COUNT(*) FROM {table} AS o
                        WHERE o.fleet_id = m.fleet_id AND o.status = m.status AND o.user_id = m.user_id
                          AND (o.created_at, o.id) < (m.created_at, m.id)) AS r
            FROM {table} AS m WHERE m.id = %s AND m.status = %s),
        per_user AS (
            SELECT COUNT(*) AS n, COUNT(*) FILTER (WHERE (q.created_at, q.id) < (me.created_at, me.id)) AS a
            FROM {table} AS q, me WHERE q.fleet_id = me.fleet_id AND q.status = %s GROUP BY q.user_id)
        SELECT 1 + SUM(CASE WHEN p.a >= me.r THEN me.r WHEN p.n < me.r - 1 THEN p.n ELSE me.r - 1 END)
        FROM per_user AS p, me"""  # noqa: S608 (only the table name is interpolated)
    pk = Submission._meta.get_field("id").get_db_prep_value(submission.pk, connection)
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk, Status.IN_QUEUE.value, Status.IN_QUEUE.value])
        row = cursor.fetchone()
    return None if row is None or row[0] is None else int(row[0])  # None: it left the queue meanwhile


def queue_positions(*, submissions: list[Submission]) -> dict[uuid.UUID, int]:
    """Positions for a page of submissions with one query per pool that has queued ones."""
    positions: dict[uuid.UUID, int] = {}
    for fleet_id in {s.fleet_id for s in submissions if s.status == Status.IN_QUEUE}:
        for index, sid in enumerate(queue_order(fleet_id=fleet_id), start=1):
            positions[sid] = index
    return positions

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

from core import clock
from core.prepared_query import PreparedQuery
from submissions.models import (
    ACTIVE_STATUSES,
    Judging,
    Problem,
    ProblemVersion,
    QueueClass,
    Status,
    Submission,
    SubmissionEvent,
)


def _quota_counts(*, user_id: Any, since: datetime) -> QuerySet[Any]:
    # Grouped by the one user rather than aggregated, so that it is a queryset (and can be prepared):
    # a user with no submission gets no row.
    return (Submission.objects.filter(user_id=user_id).exclude(status=Status.REJECTED).values("user_id").annotate(
        daily=Count("pk", filter=Q(created_at__gte=since)),
        # A rejudge staff asked for is not the user's doing: it takes nothing of their quota.
        active=Count("pk", filter=Q(status__in=ACTIVE_STATUSES, queue_class=QueueClass.USER)),
        total=Count("pk")).values_list("daily", "active", "total"))


# Asked at every submission (the admission gate): compiled once per process.
_quota: PreparedQuery[tuple[int, int, int]] = PreparedQuery(_quota_counts, user_id=int, since=datetime)


def user_quota(*, user_id: Any, now: datetime | None = None) -> dict[str, int]:
    """A user's quotas and how much of them is used, in one query: submissions in the last 24 hours
    and active ones (refusals do not count), and all submissions ever."""
    now = now or clock.now()
    rows = _quota.fetch(user_id=user_id, since=now - timedelta(days=1))
    daily, active, total = rows[0] if rows else (0, 0, 0)
    return {"daily_limit": settings.HIPJUDGE_QUOTA_DAILY, "daily_used": daily,
            "concurrent_limit": settings.HIPJUDGE_QUOTA_CONCURRENT, "concurrent_used": active,
            "total": total}


def problem_list() -> QuerySet[Problem]:
    return Problem.objects.filter(is_active=True, current_version__isnull=False).order_by("slug")


def problem_get(*, slug: str) -> Problem | None:
    return problem_list().select_related("current_version").filter(slug=slug).first()


# The problem's cases by what they are for, in the words the pages use.
CASE_KINDS = ("tests", "benchmarks", "ranked")


def problem_interface(*, version: ProblemVersion | None) -> dict[str, Any]:
    """What a solution declares, from the version's bundle: `signatures` (each language's spelling of
    `solution`), `parameters` (name, problem.yaml type, each language's C type, shape, direction) and
    `cases` (tests, benchmarks and ranked cases: name, device classes, sizes). Empty for a version
    whose bundle no longer parses."""
    empty: dict[str, Any] = {"signatures": {}, "parameters": [], "cases": {kind: [] for kind in CASE_KINDS}}
    if version is None or not version.bundle:
        return empty
    # Here, not at module level: the web and worker processes start without NumPy (the
    # bundle's loader brings it), which only a problem page or the problem API then loads.
    from agent.problems import ProblemError, problem_from_bundle

    try:
        bundle = problem_from_bundle(version.bundle)
    except ProblemError:
        return empty
    # A language the bundle does not offer (triton without its template) has no signature here.
    offered = set(version.templates or {}) or set(bundle.languages)
    signatures = {lang: text for lang, text in bundle.c_signatures().items() if lang in offered}
    cases = {kind: [{"name": case.name, "devices": list(case.devices), "params": dict(case.params)}
                    for case in getattr(bundle, kind)] for kind in CASE_KINDS}
    return {"signatures": signatures, "parameters": bundle.parameters(), "cases": cases}


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
        qs = qs.filter(pool__name=filters["pool"])
    if filters.get("id"):
        prefix = id_prefix(str(filters["id"]))
        qs = qs.filter(pk__startswith=prefix) if prefix else qs.none()
    return (qs.select_related("problem", "problem_version", "pool", "user", "judging")
            .defer("source", "problem_version__bundle", "problem_version__statement", "problem_version__templates",
                   "judging__summary")
            .order_by("-created_at"))


def id_prefix(text: str) -> str | None:
    """The start of a submission id as the database compares it (lowercase, dashed where a UUID has
    its dashes: PostgreSQL compares the dashed text), or None when it is no such thing."""
    digits = text.lower().replace("-", "")
    if not 4 <= len(digits) <= 32 or any(c not in "0123456789abcdef" for c in digits):
        return None
    groups, start = [], 0
    for size in (8, 4, 4, 4, 12):
        if start < len(digits):
            groups.append(digits[start:start + size])
        start += size
    return "-".join(groups)


def submission_get(*, user: User | AnonymousUser, submission_id: uuid.UUID | str,
                   related: tuple[str, ...] = ()) -> Submission | None:
    """Owner, or staff; anyone else gets None (callers answer 404 so ids do not leak). `related`: more
    one-to-one rows to load in the same query, named by the apps that own them (leaderboard.entries.ENTRY)."""
    try:
        uuid.UUID(str(submission_id))
    except ValueError:
        return None
    return _visible_to(user).select_related("problem", "problem_version", "pool", "vm", "user", "judging",
                                            *related).filter(pk=submission_id).first()


class AmbiguousId(ValueError):
    """A short id that starts several of the caller's submissions; the message lists them."""


def submission_find(*, user: User | AnonymousUser, text: str, related: tuple[str, ...] = ()) -> Submission | None:
    """The submission `text` names among those the caller may see (owner, or staff): its whole id,
    or the start of it (4 to 32 hex digits, dashes allowed; the pages show 8). None when none
    matches or `text` is no such thing; AmbiguousId when several do."""
    text = str(text).strip()
    if len(text.replace("-", "")) == 32:
        return submission_get(user=user, submission_id=text, related=related)
    prefix = id_prefix(text)
    if prefix is None:
        return None
    matching = _visible_to(user).filter(pk__startswith=prefix).order_by("-created_at")
    found = list(matching.values_list("pk", flat=True)[:3])
    if len(found) > 1:
        shown = ", ".join(str(pk) for pk in found[:2]) + (" and more" if len(found) > 2 else "")
        raise AmbiguousId(f"{text!r} starts more than one submission ({shown}): give more of its id.")
    return submission_get(user=user, submission_id=found[0], related=related) if found else None


def submission_events(*, submission: Submission, after: int = 0) -> QuerySet[SubmissionEvent]:
    return submission.events.filter(seq__gt=after).order_by("seq")


def queue_order(*, pool_id: uuid.UUID | str, limit: int | None = None) -> list[uuid.UUID]:
    """Queued submissions of a pool in dispatch order. Users' own submissions first, fair across
    users (each user's oldest first, round-robin between users, then oldest first); rejudges after
    all of them, in the order staff asked for them. So a rejudge never goes before a user's
    submission: it delays one by at most the rejudge already running on the VM it waits for."""
    queued = Submission.objects.filter(pool_id=pool_id, status=Status.IN_QUEUE)
    users = (queued.filter(queue_class=QueueClass.USER)
             .annotate(user_rank=Window(RowNumber(), partition_by=[F("user_id")],
                                        order_by=[F("created_at").asc(), F("id").asc()]))
             .order_by("user_rank", "created_at", "id").values_list("id", flat=True))
    order = list(users[:limit] if limit else users)
    if limit is None or len(order) < limit:
        rejudges = queued.filter(queue_class=QueueClass.REJUDGE).order_by("queued_at", "id").values_list(
            "id", flat=True)
        order += list(rejudges[:limit - len(order)] if limit else rejudges)
    return order


def queue_length(*, pool_id: uuid.UUID | str) -> int:
    return Submission.objects.filter(pool_id=pool_id, status=Status.IN_QUEUE).count()


def queue_position(*, submission: Submission) -> int | None:
    """1-based place in the pool's queue (the order of queue_order), or None when it is not queued.
    One query that returns one number: the rows ahead are counted per user, without ranking
    (sorting) the whole queue or sending it to Python.

    A user's submission: with r = 1 + the owner's queued submissions older than this one (its
    rank), a user with n queued of which a are older than it has ahead of it: r when a >= r (their
    first r), else min(n, r - 1). The sum over users, plus one, is the position. A rejudge: every
    queued user submission is ahead of it, and the rejudges asked for before it."""
    if submission.status != Status.IN_QUEUE:
        return None
    table = connection.ops.quote_name(Submission._meta.db_table)
    pk = Submission._meta.get_field("id").get_db_prep_value(submission.pk, connection)
    queued, user, rejudge = Status.IN_QUEUE.value, QueueClass.USER.value, QueueClass.REJUDGE.value
    if submission.queue_class == QueueClass.REJUDGE:
        sql = f"""
            SELECT 1 + (SELECT COUNT(*) FROM {table} AS q
                        WHERE q.fleet_id = me.fleet_id AND q.status = me.status
                          AND (q.queue_class = %s OR (q.queue_class = me.queue_class
                                                      AND (q.queued_at, q.id) < (me.queued_at, me.id))))
            FROM {table} AS me WHERE me.id = %s AND me.status = %s AND me.queue_class = %s"""  # noqa: S608
        params = [user, pk, queued, rejudge]
    else:
        sql = f"""
            WITH me AS (
                SELECT m.fleet_id, m.created_at, m.id,
                       1 + (SELECT COUNT(*) FROM {table} AS o
                            WHERE o.fleet_id = m.fleet_id AND o.status = m.status AND o.user_id = m.user_id
                              AND o.queue_class = m.queue_class
                              AND (o.created_at, o.id) < (m.created_at, m.id)) AS r
                FROM {table} AS m WHERE m.id = %s AND m.status = %s AND m.queue_class = %s),
            per_user AS (
                SELECT COUNT(*) AS n, COUNT(*) FILTER (WHERE (q.created_at, q.id) < (me.created_at, me.id)) AS a
                FROM {table} AS q, me WHERE q.fleet_id = me.fleet_id AND q.status = %s AND q.queue_class = %s
                GROUP BY q.user_id)
            SELECT 1 + SUM(CASE WHEN p.a >= me.r THEN me.r WHEN p.n < me.r - 1 THEN p.n ELSE me.r - 1 END)
            FROM per_user AS p, me"""  # noqa: S608 (only the table name is interpolated)
        params = [pk, queued, user, queued, user]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None or row[0] is None else int(row[0])  # None: it left the queue meanwhile


def queue_positions(*, submissions: list[Submission]) -> dict[uuid.UUID, int]:
    """Positions for a page of submissions with one query per pool that has queued ones."""
    positions: dict[uuid.UUID, int] = {}
    for pool_id in {s.pool_id for s in submissions if s.status == Status.IN_QUEUE}:
        for index, sid in enumerate(queue_order(pool_id=pool_id), start=1):
            positions[sid] = index
    return positions


def submission_history(*, submission: Submission) -> list[Judging]:
    """Every judging of the submission, oldest first (without the seed, which nothing shows)."""
    return list(Judging.objects.filter(submission=submission).select_related("problem_version")
                .defer("ranked_seed", "summary", "problem_version__bundle", "problem_version__statement",
                       "problem_version__templates").order_by("number"))

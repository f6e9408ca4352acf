"""Reads behind the web pages: the caller's standing per problem, pools as the submit form shows
them, leaderboards, quota. Each function does a fixed number of queries (pinned by tests/web)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, F, Min, Q, Window
from django.db.models.functions import RowNumber

from fleets.models import Fleet, VMInstance
from fleets.selectors import fleet_list
from submissions.models import Problem, Status, Submission
from submissions.selectors import problem_list

SOLVED_STATUSES = (Status.ACCEPTED, Status.CHECKED)


@dataclass
class ProblemRow:
    problem: Problem
    attempts: int = 0
    solved: bool = False
    best_ms: float | None = None


def problem_rows(*, user: AbstractBaseUser | AnonymousUser) -> list[ProblemRow]:
    """Every listed problem with the caller's attempts, solved state and best accepted score."""
    rows = [ProblemRow(problem=p) for p in problem_list().only("slug", "title", "difficulty", "tags")]
    if not user.is_authenticated or not rows:
        return rows
    stats = (Submission.objects.filter(user_id=user.pk).values("problem_id")
             .annotate(attempts=Count("id"), solved=Count("id", filter=Q(status__in=SOLVED_STATUSES)),
                       best=Min("score_ms", filter=Q(status=Status.ACCEPTED))))
    by_problem = {s["problem_id"]: s for s in stats}
    for row in rows:
        s = by_problem.get(row.problem.pk)
        if s:
            row.attempts, row.solved, row.best_ms = s["attempts"], s["solved"] > 0, s["best"]
    return rows


@dataclass
class PoolOption:
    fleet: Fleet
    warm_vms: int
    live_vms: int
    languages: list[str]
    cold_start_s: float | None  # median of recent cold starts; None when there is no history
    compile_only: list[str] = field(default_factory=list)  # languages this pool can only compile-check

    @property
    def name(self) -> str:
        return self.fleet.name

    @property
    def submittable_languages(self) -> list[str]:
        """What a submission to this pool may be written in: run, or only compile-checked."""
        return [*self.languages, *self.compile_only]

    @property
    def hourly_rate(self) -> Decimal:
        return self.fleet.hourly_rate

    @property
    def full(self) -> bool:
        return self.warm_vms == 0 and self.live_vms >= self.fleet.max_vms


def pool_options() -> list[PoolOption]:
    """Enabled pools with warm/live VM counts and the typical cold-start wait (two queries)."""
    fleets = list(fleet_list())
    recent = (VMInstance.objects.filter(fleet__in=fleets, ready_at__isnull=False)
              .order_by("-created_at").values_list("fleet_id", "created_at", "ready_at")[:200])
    waits: dict[Any, list[float]] = {}
    for fleet_id, created, ready in recent:
        if ready is not None and len(waits.setdefault(fleet_id, [])) < 20:
            waits[fleet_id].append(max(0.0, (ready - created).total_seconds()))
    # fleet_list() annotates the VM counts.
    return [PoolOption(fleet=f, warm_vms=getattr(f, "warm_vms", 0), live_vms=getattr(f, "live_vms", 0),
                       languages=f.accepted_languages, compile_only=f.compile_only_languages,
                       cold_start_s=statistics.median(waits[f.pk]) if waits.get(f.pk) else None)
            for f in fleets]


def cold_start_estimate(*, fleet: Fleet) -> float | None:
    recent = list(VMInstance.objects.filter(fleet=fleet, ready_at__isnull=False)
                  .order_by("-created_at").values_list("created_at", "ready_at")[:20])
    if not recent:
        return None
    return statistics.median(max(0.0, (ready - created).total_seconds()) for created, ready in recent
                             if ready is not None)


def leaderboard(*, problem: Problem, fleet: Fleet, limit: int = 100) -> list[Submission]:
    """Each user's best ACCEPTED submission on this problem and pool, fastest first; equal scores
    rank by who got there first."""
    best = (Submission.objects.filter(problem=problem, fleet=fleet, status=Status.ACCEPTED, score_ms__isnull=False)
            .annotate(user_rank=Window(RowNumber(), partition_by=[F("user_id")],
                                       order_by=[F("score_ms").asc(), F("created_at").asc()]))
            .filter(user_rank=1)
            .select_related("user")
            .only("id", "score_ms", "created_at", "finished_at", "language", "user__username", "user_id")
            .order_by("score_ms", "created_at"))
    return list(best[:limit])


def leaderboard_pools(*, problem: Problem) -> list[Fleet]:
    """Pools to offer on a leaderboard: enabled ones plus any that has accepted submissions here."""
    used = Submission.objects.filter(problem=problem, status=Status.ACCEPTED).values("fleet_id")
    return list(Fleet.objects.filter(Q(enabled=True) | Q(pk__in=used)).order_by("name"))



"""Reads behind the web pages: the caller's standing per problem, pools as the submit form shows
them, leaderboards. Each function does a fixed number of queries (pinned by
tests/web)."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Q

from billing.selectors import pool_is_paid
from fleets.models import Pool, VMInstance
from fleets.selectors import pool_list
from leaderboard.bests import Best, user_bests
from leaderboard.selectors import leaderboard_rows, ranked_pool_ids, solved_counts
from leaderboard.speed_of_light import PoolLight, best_light, leaderboard_light
from limits.selectors import PoolAccess, Standing, pools_offered
from submissions.browse import ProblemFilters, problems_filtered
from submissions.models import SOLVED_STATUSES, Problem, Submission
from submissions.offers import LanguageOffer, pool_offers


@dataclass
class ProblemRow:
    problem: Problem
    attempts: int = 0
    solved: bool = False
    bests: list[Best] = field(default_factory=list)  # per pool: the ranked score where there is one
    solved_by: int = 0  # users who solved it (leaderboard.selectors.SOLVED)
    lights: list[PoolLight] = field(default_factory=list)  # per pool: the leaderboard best's speed of light


def problem_rows(*, user: AbstractBaseUser | AnonymousUser, filters: ProblemFilters | None = None) -> list[ProblemRow]:
    """Every listed problem the filters keep, with how many users solved it, the leaderboard's best
    speed of light per pool (anyone's), and the caller's attempts, solved state and best per pool
    (user_bests)."""
    rows = [ProblemRow(problem=p) for p in problems_filtered(filters=filters or ProblemFilters())
            .only("slug", "title", "difficulty", "tags", "data_types")]
    solved_by = solved_counts(problem_ids=[row.problem.pk for row in rows]) if rows else {}
    lights = best_light(problem_ids=[row.problem.pk for row in rows]) if rows else {}
    for row in rows:
        row.solved_by = solved_by.get(row.problem.pk, 0)
        row.lights = lights.get(row.problem.pk, [])
    if not user.is_authenticated or not rows:
        return rows
    stats = (Submission.objects.filter(user_id=user.pk).values("problem_id")
             .annotate(attempts=Count("id"), solved=Count("id", filter=Q(status__in=SOLVED_STATUSES))))
    by_problem = {s["problem_id"]: s for s in stats}
    bests = user_bests(user_id=user.pk) if by_problem else {}
    for row in rows:
        s = by_problem.get(row.problem.pk)
        if s:
            row.attempts, row.solved, row.bests = s["attempts"], s["solved"] > 0, bests.get(row.problem.pk, [])
    return rows


@dataclass
class PoolOption:
    pool: Pool
    warm_vms: int
    live_vms: int
    languages: list[str]
    cold_start_s: float | None  # median of recent cold starts; None when there is no history
    compile_only: list[str] = field(default_factory=list)  # languages this pool can only compile-check
    offers: list[LanguageOffer] = field(default_factory=list)  # every language it takes, with its modes
    access: PoolAccess = field(default_factory=lambda: PoolAccess(True))  # for the user who looks

    @property
    def paid(self) -> bool:
        return pool_is_paid(self.pool)

    @property
    def name(self) -> str:
        return self.pool.name

    @property
    def submittable_languages(self) -> list[str]:
        """What a submission to this pool may be written in: run, emulated or only compile-checked."""
        return [offer.language for offer in self.offers]

    @property
    def emulated(self) -> list[str]:
        """Languages this pool checks on the emulated device (CPU)."""
        return [offer.language for offer in self.offers if offer.emulated]

    @property
    def offers_json(self) -> str:
        """Modes per language, for the page's script: {"hip": {"language": "hip", "modes": [...], "emulated": true}}."""
        return json.dumps({o.language: o.as_dict() for o in self.offers})

    @property
    def hourly_rate(self) -> Decimal:
        return self.pool.hourly_rate

    @property
    def full(self) -> bool:
        return self.warm_vms == 0 and self.live_vms >= self.pool.max_vms


def pool_options(*, user: AbstractBaseUser | AnonymousUser, standing: Standing) -> list[PoolOption]:
    """Enabled pools with warm/live VM counts, the typical cold-start wait and whether they are open
    to `user` (two queries, a third when a paid pool is closed to them)."""
    pools = list(pool_list())
    access = pools_offered(user=user, pools=pools, standing=standing)
    recent = (VMInstance.objects.filter(pool__in=pools, ready_at__isnull=False)
              .order_by("-created_at").values_list("pool_id", "created_at", "ready_at")[:200])
    waits: dict[Any, list[float]] = {}
    for pool_id, created, ready in recent:
        if ready is not None and len(waits.setdefault(pool_id, [])) < 20:
            waits[pool_id].append(max(0.0, (ready - created).total_seconds()))
    # pool_list() annotates the VM counts.
    return [PoolOption(pool=f, warm_vms=getattr(f, "warm_vms", 0), live_vms=getattr(f, "live_vms", 0),
                       languages=f.accepted_languages, compile_only=f.compile_only_languages,
                       offers=pool_offers(pool=f),
                       cold_start_s=statistics.median(waits[f.pk]) if waits.get(f.pk) else None,
                       access=access[f.pk])
            for f in pools]


def cold_start_estimate(*, pool: Pool) -> float | None:
    recent = list(VMInstance.objects.filter(pool=pool, ready_at__isnull=False)
                  .order_by("-created_at").values_list("created_at", "ready_at")[:20])
    if not recent:
        return None
    return statistics.median(max(0.0, (ready - created).total_seconds()) for created, ready in recent
                             if ready is not None)


def leaderboard(*, problem: Problem, pool: Pool, limit: int = 100) -> list[Submission]:
    """Each user's best shown ranked result on this problem and pool, fastest first, each with its
    speed of light on the pool (three queries)."""
    rows = leaderboard_rows(problem_id=problem.pk, pool_id=pool.pk, limit=limit)
    leaderboard_light(rows=rows, pool=pool)
    return rows


def leaderboard_pools(*, problem: Problem) -> list[Pool]:
    """Pools to offer on a leaderboard: enabled ones plus any that has ranked results here, the
    server's default pool first (the tab a leaderboard opens on), then by name."""
    used = ranked_pool_ids(problem_id=problem.pk)
    pools = list(Pool.objects.filter(Q(enabled=True) | Q(pk__in=used)).order_by("name"))
    return sorted(pools, key=lambda f: f.name != settings.HIPJUDGE_DEFAULT_POOL)

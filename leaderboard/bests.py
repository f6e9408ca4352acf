"""A user's best result per problem and pool: one number, the same on every page, in the API and
in the CLI. Where the user has a result on the leaderboard it is that one (its ranked score, the
number the leaderboard shows); else their fastest accepted public benchmark, marked as such (it is
timed on public shapes and never ranks). Checks on the emulated device have no time and never count."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Case, F, Q, QuerySet, Value, When, Window
from django.db.models.functions import RowNumber

from core.prepared_query import PreparedQuery
from leaderboard.selectors import LISTED
from submissions.models import Status, Submission

RANKED, BENCHMARK = "ranked", "benchmark"


@dataclass(frozen=True)
class Best:
    problem_id: Any
    pool: str
    score_ms: float
    kind: str  # ranked | benchmark
    submission_id: Any


# What a row offers as a best: a shown ranked result, or else an accepted public benchmark (timed).
_RANKED = Case(When(LISTED, then=Value(0)), default=Value(1))
_BENCHMARK = Q(status=Status.ACCEPTED, score_ms__isnull=False, emulated=False)


def _bests_query(*, user_id: Any, problem_ids: list[Any] | None = None) -> QuerySet[Any]:
    mine = Submission.objects.filter(LISTED | _BENCHMARK, user_id=user_id)
    if problem_ids is not None:
        mine = mine.filter(problem_id__in=problem_ids)
    score = Case(When(LISTED, then=F("entry__ranked_score_ms")), default=F("score_ms"))
    return (mine.annotate(unranked=_RANKED, best=score)
            .annotate(place=Window(RowNumber(), partition_by=[F("problem_id"), F("pool_id")],
                                   order_by=[F("unranked").asc(), F("best").asc(), F("created_at").asc(),
                                             F("id").asc()]))
            .filter(place=1).values_list("problem_id", "pool__name", "best", "unranked", "id"))


# Every problem's bests of one user, as the problem list asks at each request: compiled once.
_all_bests: PreparedQuery[tuple[Any, str, float, int, Any]] = PreparedQuery(_bests_query, user_id=int)


def user_bests(*, user_id: Any, problem_ids: list[Any] | None = None) -> dict[Any, list[Best]]:
    """problem id -> the user's best per pool, in one query."""
    rows = (_all_bests.fetch(user_id=user_id) if problem_ids is None
            else list(_bests_query(user_id=user_id, problem_ids=problem_ids)))
    bests: dict[Any, list[Best]] = {}
    # The server's default pool first, as the leaderboards open on it; then by name.
    for problem_id, pool, best, unranked, submission_id in sorted(
            rows, key=lambda r: (r[1] != settings.HIPJUDGE_DEFAULT_POOL, r[1])):
        bests.setdefault(problem_id, []).append(Best(problem_id, pool, best, BENCHMARK if unranked else RANKED,
                                                     submission_id))
    return bests

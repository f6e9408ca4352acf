"""The ranked results as a JSON Lines dataset (`manage.py export_results`): one line per result shown
on a leaderboard, with its cases. The source and the submission's id only where its author made
the source public; never the seed, and nothing held for review, invalidated or withdrawn."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Protocol

from django.db.models import Prefetch

from core.exceptions import ApplicationError
from fleets.models import Pool
from leaderboard.entries import entry_of
from leaderboard.models import RankedCaseResult, Review
from leaderboard.selectors import LISTED
from submissions.models import Judging, Problem, Submission


class Writable(Protocol):
    def write(self, text: str, /) -> object: ...


def _time(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value else None


def _case(case: RankedCaseResult) -> dict[str, Any]:
    return {"case": case.case, "runs": case.runs, "mean_ms": case.mean_ms, "median_ms": case.median_ms,
            "ci95_ms": [case.ci95_lo_ms, case.ci95_hi_ms], "reference_mean_ms": case.reference_mean_ms,
            "speedup": case.speedup, "gflops": case.gflops, "gbps": case.gbps}


def ranked_result_rows(*, problem: str | None = None, pool: str | None = None) -> Iterator[dict[str, Any]]:
    """Every shown ranked result (of one problem / pool when given), oldest submission first."""
    if problem and not Problem.objects.filter(slug=problem).exists():
        raise ApplicationError(f"problem: there is no problem {problem!r}.", {"field": "problem"})
    if pool and not Pool.objects.filter(name=pool).exists():
        raise ApplicationError(f"pool: there is no pool {pool!r}.", {"field": "pool"})
    qs = Submission.objects.filter(LISTED)
    if problem:
        qs = qs.filter(problem__slug=problem)
    if pool:
        qs = qs.filter(pool__name=pool)
    judgings = Judging.objects.filter(ranked_score_ms__isnull=False).order_by("-number").prefetch_related(
        "ranked_cases").only("id", "submission_id", "number")
    qs = (qs.select_related("problem", "problem_version", "pool", "user", "entry")
          .defer("problem_version__bundle", "problem_version__statement", "problem_version__templates")
          .prefetch_related(Prefetch("judgings", queryset=judgings, to_attr="ranked_judgings"))
          .order_by("created_at", "id"))
    for submission in qs.iterator(chunk_size=200):
        # The judging whose result shows: not a rejudge's result that still waits for review.
        entry = entry_of(submission)
        latest = next((j for j in submission.ranked_judgings  # type: ignore[attr-defined]
                       if not (entry.review == Review.PENDING and j.pk == submission.judging_id)), None)
        public = entry.public_source
        yield {
            "submission": str(submission.pk) if public else None,
            "problem": submission.problem.slug, "problem_version": submission.problem_version.content_hash,
            "pool": submission.pool.name, "device": submission.pool.device, "gpu": submission.pool.gpu_name,
            "user": submission.user.username, "language": submission.language,
            "submitted_at": _time(submission.created_at), "ranked_at": _time(entry.ranked_at),
            "score_ms": entry.ranked_score_ms,
            "ci95_ms": [entry.ranked_ci95_lo_ms, entry.ranked_ci95_hi_ms]
            if entry.ranked_ci95_lo_ms is not None else None,
            "speedup": entry.ranked_speedup,
            "cases": [_case(c) for c in latest.ranked_cases.all()] if latest else [],
            "public_source": public, "source": submission.source if public else None,
        }


def ranked_results_export(*, out: Writable, problem: str | None = None, pool: str | None = None) -> int:
    """Write the rows as JSON Lines to `out`; returns how many."""
    count = 0
    for row in ranked_result_rows(problem=problem, pool=pool):
        out.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
        count += 1
    return count

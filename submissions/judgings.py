"""Judgings: each run of a submission through the judge (the first, then one per rejudge) with its
outcome, and for mode leaderboard its ranked result (which the leaderboard app turns into the
submission's standing when it receives `judging_closed`).

The ranked pass's secret seed is drawn here, once per judging, and lives only in the Judging row
and the job sent to the agent: no API, page, event, log line or export reads it.
"""

from __future__ import annotations

import secrets
import uuid
from typing import Any

from django.contrib.auth.models import User

from submissions.models import VERDICT_STATUSES, Judging, Mode, QueueClass, Status, Submission
from submissions.ranking import (
    BadRankedResult,
    RankedResult,
    pool_device_class,
    ranked_case_names,
    ranked_result_parse,
)
from submissions.signals import judging_closed

SEED_BOUND = 2**63  # the seed is an int in [0, 2**63): a signed 64-bit column holds it


def ranked_seed_draw() -> int:
    return secrets.randbelow(SEED_BOUND)


def judging_new(*, submission: Submission, kind: str = QueueClass.USER, reason: str = "",
                by: User | None = None) -> Judging:
    """The next judging of `submission` (not saved: the caller inserts it with the submission's row,
    which points at it). A leaderboard submission gets a new secret seed each time."""
    number = 1 if submission.judging_id is None or kind == QueueClass.USER else (
        Judging.objects.filter(submission_id=submission.pk).order_by("-number").values_list("number", flat=True)
        .first() or 0) + 1
    return Judging(id=uuid.uuid4(), submission=submission, number=number, kind=kind, reason=reason,
                   requested_by=by, problem_version_id=submission.problem_version_id,
                   ranked_seed=ranked_seed_draw() if submission.mode == Mode.LEADERBOARD else None,
                   first_attempt=submission.attempt + 1)


def judging_reseed_locked(*, submission: Submission) -> None:
    """A new secret seed for the current judging of a leaderboard submission being queued again (a
    VM lost mid-job): the attempt that died may have run the kernel on the old seed's inputs."""
    if submission.judging_id is not None and submission.mode == Mode.LEADERBOARD:
        Judging.objects.filter(pk=submission.judging_id).update(ranked_seed=ranked_seed_draw())


def judging_attempts(*, submission: Submission) -> int:
    """How many times the current judging was dispatched (attempts count on across rejudges)."""
    first = Judging.objects.filter(submission_id=submission.pk, pk=submission.judging_id).values_list(
        "first_attempt", flat=True).first() if submission.judging_id else None
    return submission.attempt - (first or 1) + 1


def ranked_result_read(*, submission: Submission, summary: dict[str, Any]) -> RankedResult:
    """The passed ranked result of a leaderboard submission's RESULT, checked against the ranked cases
    of its problem version on its pool's device class. Raises BadRankedResult."""
    definition = (submission.problem_version.bundle or {}).get("definition") or {}
    expected = ranked_case_names(definition=definition, device_class=pool_device_class(submission.pool))
    if not expected:
        raise BadRankedResult("the problem has no ranked cases for this pool")
    return ranked_result_parse(summary=summary, expected_cases=expected)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def judging_close_locked(*, submission: Submission, ranked: RankedResult | None) -> None:
    """Record the end of the submission's current judging (its row locked, its final status, reason,
    score and summary already set on it): the Judging row here, then `judging_closed` for what the
    leaderboard keeps in its own rows (its ranked cases, the submission's standing)."""
    if submission.judging_id is not None:
        summary = submission.summary if isinstance(submission.summary, dict) else {}
        Judging.objects.filter(pk=submission.judging_id).update(
            status=submission.status, status_reason=submission.status_reason, score_ms=submission.score_ms,
            summary=summary, speedup=_number(summary.get("speedup")), finished_at=submission.finished_at,
            ranked_passed=None if submission.mode != Mode.LEADERBOARD or submission.status not in VERDICT_STATUSES
            else ranked is not None,
            ranked_score_ms=ranked.score_ms if ranked else None, ranked_speedup=ranked.speedup if ranked else None,
            ranked_ci95_lo_ms=ranked.ci95_ms[0] if ranked and ranked.ci95_ms else None,
            ranked_ci95_hi_ms=ranked.ci95_ms[1] if ranked and ranked.ci95_ms else None)
    judging_closed.send(sender=Submission, submission=submission, ranked=ranked)


def finish_outcome(*, submission: Submission, status: str, reason: str,
                   summary: dict[str, Any]) -> tuple[str, str, RankedResult | None]:
    """The status and reason a judging ends with, and its ranked result: a leaderboard submission the
    agent ACCEPTED without a valid ranked result is a judge error, not a ranked one."""
    if submission.mode != Mode.LEADERBOARD or status != Status.ACCEPTED:
        return status, reason, None
    try:
        return status, reason, ranked_result_read(submission=submission, summary=summary)
    except BadRankedResult as exc:
        return Status.ERROR, f"The judge reported no valid ranked result ({exc}); this is not your fault.", None

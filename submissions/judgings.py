"""Judgings: each run of a submission through the judge (the first, then one per rejudge) with its
outcome, and for mode leaderboard its ranked result, which becomes the submission's standing.

The ranked pass's secret seed is drawn here, once per judging, and lives only in the Judging row
and the job sent to the agent: no API, page, event, log line or export reads it.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from core.queue import enqueue
from leaderboard.records import Result, agree, record_reasons
from submissions.models import VERDICT_STATUSES, Judging, Mode, QueueClass, RankedCaseResult, Review, Status, Submission
from submissions.ranking import (
    BadRankedResult,
    RankedResult,
    fleet_device_class,
    ranked_case_names,
    ranked_result_parse,
    review_reasons,
)
from submissions.selectors import listed_results

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


def records_confirm_soon(*, submission_ids: list[Any] | None = None) -> int:
    """Queue the confirmation of every record whose judging ended and whose VM was given back (of
    these submissions, or all): the runner calls it after the release, the sweep in case that was
    lost. The task itself is a no-op when the record was confirmed already."""
    pending = Submission.objects.filter(status=Status.ACCEPTED, judging__record=True)
    if submission_ids is not None:
        pending = pending.filter(pk__in=submission_ids)
    count = 0
    for submission_id, judging_id in pending.values_list("pk", "judging_id"):
        enqueue("submissions.tasks.confirm_record", str(submission_id), str(judging_id))
        count += 1
    return count


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
    expected = ranked_case_names(definition=definition, device_class=fleet_device_class(submission.fleet))
    if not expected:
        raise BadRankedResult("the problem has no ranked cases for this pool")
    return ranked_result_parse(summary=summary, expected_cases=expected)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _standing_from(submission: Submission, ranked: RankedResult | None) -> list[str]:
    """Set the submission's ranked fields from its judging's end; returns the fields changed.
    A verdict replaces the standing (ranked or not, with the judge's reason); a judging that reached
    no verdict (cancelled, rejected, a judge error) leaves an earlier ranked result in place. A record
    ranks only once a second judging confirms it (leaderboard.records)."""
    if submission.mode != Mode.LEADERBOARD:
        return []
    confirmed = _confirmed_judging(submission)
    if ranked is None:
        if confirmed is not None and submission.status not in VERDICT_STATUSES:
            earlier = Result.of_judging(confirmed)
            if earlier is not None:  # the platform failed the confirmation, not the kernel: staff decide
                return _set_standing(submission, earlier, confirmed.ranked_speedup, [
                    f"its record {earlier.text()} awaits a confirmation that ended without a verdict "
                    f"({submission.status_reason})"])
        if submission.status not in VERDICT_STATUSES and submission.ranked_score_ms is not None:
            # A rejudge that reached no verdict keeps the earlier result; a judge error hides it until
            # staff look (a kernel that takes its VM down must not keep a rank it may not deserve).
            if submission.status != Status.ERROR:
                return []
            submission.review = Review.HELD
            submission.review_reason = (f"Held for review: its rejudge ended in a judge error "
                                        f"({submission.status_reason})")
            submission.reviewed_by, submission.reviewed_at = None, None
            return ["review", "review_reason", "reviewed_by", "reviewed_at"]
        submission.ranked_score_ms = submission.ranked_ci95_lo_ms = submission.ranked_ci95_hi_ms = None
        submission.ranked_speedup, submission.ranked_at = None, None
        submission.ranked_reason = submission.status_reason
        submission.review, submission.review_reason = Review.NONE, ""
        submission.reviewed_by, submission.reviewed_at = None, None
        return STANDING_FIELDS
    result = Result.ranked(ranked)
    if confirmed is None:
        if why := record_reasons(submission=submission, ranked=ranked):
            # Whatever it showed before stays as it was until the second judging ends, which is queued
            # once this one's VM is released (its time is then booked to the owner, not the platform).
            submission.ranked_reason = (f"A record ({'; '.join(why)}): it ranks once a second judging on a new "
                                        "secret seed agrees with it.")
            if submission.judging_id is not None:
                Judging.objects.filter(pk=submission.judging_id).update(record=True)
            return ["ranked_reason"]
        return _set_standing(submission, result, ranked.speedup, _held_because(submission, ranked, result))
    earlier = Result.of_judging(confirmed) or result
    if earlier.score_ms >= result.score_ms:  # the slower of the two ranks
        chosen, speedup = earlier, confirmed.ranked_speedup
    else:
        chosen, speedup = result, ranked.speedup
    reasons = [] if agree(earlier, result) else [
        f"its record was not confirmed: the first judging gave {earlier.text()}, a second one on a new secret seed "
        f"{result.text()}, and the intervals do not overlap"]
    return _set_standing(submission, chosen, speedup, reasons + _held_because(submission, ranked, chosen))


STANDING_FIELDS = ["ranked_score_ms", "ranked_ci95_lo_ms", "ranked_ci95_hi_ms", "ranked_speedup", "ranked_at",
                   "ranked_reason", "review", "review_reason", "reviewed_by", "reviewed_at"]


def _confirmed_judging(submission: Submission) -> Judging | None:
    """The judging whose record the submission's current judging confirms, if it is a confirmation."""
    if submission.judging_id is None:
        return None
    confirms = Judging.objects.filter(pk=submission.judging_id).values_list("confirms_id", flat=True).first()
    return Judging.objects.filter(pk=confirms).first() if confirms else None


def _held_because(submission: Submission, ranked: RankedResult, result: Result) -> list[str]:
    """The review rules (submissions.ranking) for the result that would rank."""
    best = listed_results(problem_id=submission.problem_id, fleet_id=submission.fleet_id).exclude(
        pk=submission.pk).order_by("ranked_score_ms").values_list("ranked_score_ms", flat=True).first()
    definition = (submission.problem_version.bundle or {}).get("definition") or {}
    return review_reasons(result=replace(ranked, score_ms=result.score_ms), previous_best_ms=best,
                          definition=definition, fleet=submission.fleet)


def _set_standing(submission: Submission, result: Result, speedup: float | None, reasons: list[str]) -> list[str]:
    if reasons and submission.ranked_score_ms is not None and submission.review != Review.HELD:
        # A result that must wait for staff does not take the place of the one shown before it is
        # approved: the earlier result keeps its rank, the new one waits in its Judging rows
        # (submission_approve moves it here, records.judging_that_ranks says which).
        submission.review = Review.PENDING
        submission.review_reason = ("The rejudge's new result is held for review: " + "; ".join(reasons)
                                    + ". The earlier result shows until staff approve the new one.")
        submission.reviewed_by, submission.reviewed_at = None, None
        return ["review", "review_reason", "reviewed_by", "reviewed_at"]
    submission.ranked_score_ms, submission.ranked_speedup = result.score_ms, speedup
    submission.ranked_ci95_lo_ms, submission.ranked_ci95_hi_ms = result.low_ms, result.high_ms
    submission.ranked_at, submission.ranked_reason = timezone.now(), ""
    # Each new result is reviewed afresh: an approval was of the result staff looked at.
    submission.review = Review.HELD if reasons else Review.NONE
    submission.review_reason = "Held for review: " + "; ".join(reasons) + "." if reasons else ""
    submission.reviewed_by, submission.reviewed_at = None, None
    return STANDING_FIELDS


def judging_close_locked(*, submission: Submission, ranked: RankedResult | None) -> list[str]:
    """Record the end of the submission's current judging (its row locked, its final status, reason,
    score and summary already set on it): the Judging row, its ranked cases, and the submission's
    standing. Returns the submission fields the caller must save."""
    fields = _standing_from(submission, ranked)
    if submission.judging_id is None:
        return fields
    summary = submission.summary if isinstance(submission.summary, dict) else {}
    Judging.objects.filter(pk=submission.judging_id).update(
        status=submission.status, status_reason=submission.status_reason, score_ms=submission.score_ms,
        summary=summary, speedup=_number(summary.get("speedup")), finished_at=submission.finished_at,
        ranked_passed=None if submission.mode != Mode.LEADERBOARD or submission.status not in VERDICT_STATUSES
        else ranked is not None,
        ranked_score_ms=ranked.score_ms if ranked else None, ranked_speedup=ranked.speedup if ranked else None,
        ranked_ci95_lo_ms=ranked.ci95_ms[0] if ranked and ranked.ci95_ms else None,
        ranked_ci95_hi_ms=ranked.ci95_ms[1] if ranked and ranked.ci95_ms else None)
    if ranked is not None:
        RankedCaseResult.objects.bulk_create([RankedCaseResult(
            judging_id=submission.judging_id, case=c.case, index=c.index, runs=c.runs, mean_ms=c.mean_ms,
            median_ms=c.median_ms, ci95_lo_ms=c.ci95_ms[0], ci95_hi_ms=c.ci95_ms[1],
            reference_mean_ms=c.reference_mean_ms, speedup=c.speedup, gflops=c.gflops, gbps=c.gbps,
            reference_ci95_lo_ms=c.reference_ci95_ms[0] if c.reference_ci95_ms else None,
            reference_ci95_hi_ms=c.reference_ci95_ms[1] if c.reference_ci95_ms else None)
            for c in ranked.cases])
    return fields


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

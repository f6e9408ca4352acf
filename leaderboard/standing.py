"""A leaderboard submission's standing, set when a judging ends (submissions' `judging_closed`):
its ranked result, the records that wait for a second judging (leaderboard.records), and the review
rules that hold a result until staff look (leaderboard.review). The judging's ranked cases are kept
here too, as RankedCaseResult rows."""

from __future__ import annotations

from dataclasses import replace

from django.utils import timezone

from leaderboard.entries import entry_locked
from leaderboard.models import LeaderboardEntry, RankedCaseResult, Review
from leaderboard.records import Result, agree, record_reasons
from leaderboard.review import review_reasons
from leaderboard.selectors import listed_results
from submissions.models import VERDICT_STATUSES, Judging, Mode, Status, Submission
from submissions.ranking import RankedResult


def judging_standing_close(*, submission: Submission, ranked: RankedResult | None) -> None:
    """The standing (the submission's LeaderboardEntry) and ranked cases of the judging that just
    ended, saved here: the submission's row is locked, its final status set but not yet saved."""
    if submission.mode == Mode.LEADERBOARD:
        entry = entry_locked(submission)
        if fields := _standing_from(submission, entry, ranked):
            entry.save(update_fields=fields)
    if submission.judging_id is not None and ranked is not None:
        RankedCaseResult.objects.bulk_create([RankedCaseResult(
            judging_id=submission.judging_id, case=c.case, index=c.index, runs=c.runs, mean_ms=c.mean_ms,
            median_ms=c.median_ms, ci95_lo_ms=c.ci95_ms[0], ci95_hi_ms=c.ci95_ms[1],
            reference_mean_ms=c.reference_mean_ms, speedup=c.speedup, gflops=c.gflops, gbps=c.gbps,
            reference_ci95_lo_ms=c.reference_ci95_ms[0] if c.reference_ci95_ms else None,
            reference_ci95_hi_ms=c.reference_ci95_ms[1] if c.reference_ci95_ms else None)
            for c in ranked.cases])


def _standing_from(submission: Submission, entry: LeaderboardEntry, ranked: RankedResult | None) -> list[str]:
    """Set the entry's fields from the judging's end; returns the fields changed.
    A verdict replaces the standing (ranked or not, with the judge's reason); a judging that reached
    no verdict (cancelled, rejected, a judge error) leaves an earlier ranked result in place. A record
    ranks only once a second judging confirms it (leaderboard.records)."""
    confirmed = _confirmed_judging(submission)
    if ranked is None:
        if confirmed is not None and submission.status not in VERDICT_STATUSES:
            earlier = Result.of_judging(confirmed)
            if earlier is not None:  # the platform failed the confirmation, not the kernel: staff decide
                return _set_standing(submission, entry, earlier, confirmed.ranked_speedup, [
                    f"its record {earlier.text()} awaits a confirmation that ended without a verdict "
                    f"({submission.status_reason})"])
        if submission.status not in VERDICT_STATUSES and entry.ranked_score_ms is not None:
            # A rejudge that reached no verdict keeps the earlier result; a judge error hides it until
            # staff look (a kernel that takes its VM down must not keep a rank it may not deserve).
            if submission.status != Status.ERROR:
                return []
            entry.review = Review.HELD
            entry.review_reason = (f"Held for review: its rejudge ended in a judge error "
                                   f"({submission.status_reason})")
            entry.reviewed_by, entry.reviewed_at = None, None
            return ["review", "review_reason", "reviewed_by", "reviewed_at"]
        entry.ranked_score_ms = entry.ranked_ci95_lo_ms = entry.ranked_ci95_hi_ms = None
        entry.ranked_speedup, entry.ranked_at = None, None
        entry.ranked_reason = submission.status_reason
        entry.review, entry.review_reason = Review.NONE, ""
        entry.reviewed_by, entry.reviewed_at = None, None
        return STANDING_FIELDS
    result = Result.ranked(ranked)
    if confirmed is None:
        if why := record_reasons(submission=submission, ranked=ranked):
            # Whatever it showed before stays as it was until the second judging ends, which is queued
            # once this one's VM is released (its time is then booked to the owner, not the platform).
            entry.ranked_reason = (f"A record ({'; '.join(why)}): it ranks once a second judging on a new "
                                   "secret seed agrees with it.")
            if submission.judging_id is not None:
                Judging.objects.filter(pk=submission.judging_id).update(record=True)
            return ["ranked_reason"]
        return _set_standing(submission, entry, result, ranked.speedup, _held_because(submission, ranked, result))
    earlier = Result.of_judging(confirmed) or result
    if earlier.score_ms >= result.score_ms:  # the slower of the two ranks
        chosen, speedup = earlier, confirmed.ranked_speedup
    else:
        chosen, speedup = result, ranked.speedup
    reasons = [] if agree(earlier, result) else [
        f"its record was not confirmed: the first judging gave {earlier.text()}, a second one on a new secret seed "
        f"{result.text()}, and the intervals do not overlap"]
    return _set_standing(submission, entry, chosen, speedup, reasons + _held_because(submission, ranked, chosen))


STANDING_FIELDS = ["ranked_score_ms", "ranked_ci95_lo_ms", "ranked_ci95_hi_ms", "ranked_speedup", "ranked_at",
                   "ranked_reason", "review", "review_reason", "reviewed_by", "reviewed_at"]


def _confirmed_judging(submission: Submission) -> Judging | None:
    """The judging whose record the submission's current judging confirms, if it is a confirmation."""
    if submission.judging_id is None:
        return None
    confirms = Judging.objects.filter(pk=submission.judging_id).values_list("confirms_id", flat=True).first()
    return Judging.objects.filter(pk=confirms).first() if confirms else None


def _held_because(submission: Submission, ranked: RankedResult, result: Result) -> list[str]:
    """The review rules (leaderboard.review) for the result that would rank."""
    best = listed_results(problem_id=submission.problem_id, pool_id=submission.pool_id).exclude(
        pk=submission.pk).order_by("entry__ranked_score_ms").values_list("entry__ranked_score_ms", flat=True).first()
    definition = (submission.problem_version.bundle or {}).get("definition") or {}
    return review_reasons(result=replace(ranked, score_ms=result.score_ms), previous_best_ms=best,
                          definition=definition, pool=submission.pool)


def _set_standing(submission: Submission, entry: LeaderboardEntry, result: Result, speedup: float | None,
                  reasons: list[str]) -> list[str]:
    if reasons and entry.ranked_score_ms is not None and entry.review != Review.HELD:
        # A result that must wait for staff does not take the place of the one shown before it is
        # approved: the earlier result keeps its rank, the new one waits in its Judging rows
        # (submission_approve moves it here, records.judging_that_ranks says which).
        entry.review = Review.PENDING
        entry.review_reason = ("The rejudge's new result is held for review: " + "; ".join(reasons)
                               + ". The earlier result shows until staff approve the new one.")
        entry.reviewed_by, entry.reviewed_at = None, None
        return ["review", "review_reason", "reviewed_by", "reviewed_at"]
    entry.ranked_score_ms, entry.ranked_speedup = result.score_ms, speedup
    entry.ranked_ci95_lo_ms, entry.ranked_ci95_hi_ms = result.low_ms, result.high_ms
    entry.ranked_at, entry.ranked_reason = timezone.now(), ""
    # Each new result is reviewed afresh: an approval was of the result staff looked at.
    entry.review = Review.HELD if reasons else Review.NONE
    entry.review_reason = "Held for review: " + "; ".join(reasons) + "." if reasons else ""
    entry.reviewed_by, entry.reviewed_at = None, None
    return STANDING_FIELDS

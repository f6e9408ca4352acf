"""Reads of the leaderboard: what shows on it (LISTED), each user's best per problem and pool,
where a submission stands, and the ranked result that counts. They take rows or ids the caller has
already looked up with its own scoping (submissions.selectors.submission_get and the like)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, F, Q, QuerySet, Window
from django.db.models.functions import RowNumber

from leaderboard.entries import entry_of
from leaderboard.models import RankedCaseResult, Review
from leaderboard.speedup import ranked_speedups, speedup_of
from submissions.models import ACTIVE_STATUSES, SOLVED_STATUSES, Mode, QueueClass, Status, Submission

# A ranked result shows unless it waits for review, staff invalidated it or its owner withdrew it.
# An emulated run never ranks (the pool refuses mode leaderboard for it; this holds whatever an agent says).
# A condition on Submission rows: the columns are their LeaderboardEntry's (a row without one is not listed).
LISTED = Q(entry__ranked_score_ms__isnull=False, entry__invalidated_at__isnull=True, entry__withdrawn_at__isnull=True,
           emulated=False) & ~Q(entry__review=Review.HELD)


# Solved: a submission that passed the problem's tests (ACCEPTED or CHECKED, on any pool, any version
# of the problem), as the list's own "solved" mark counts it, unless staff invalidated it.
SOLVED = Q(status__in=SOLVED_STATUSES, entry__invalidated_at__isnull=True)


def solved_counts(*, problem_ids: Iterable[Any]) -> dict[Any, int]:
    """problem id -> how many users solved it (SOLVED); problems no one solved are absent."""
    return dict(Submission.objects.filter(SOLVED, problem_id__in=list(problem_ids))
                .values("problem_id").annotate(users=Count("user_id", distinct=True))
                .values_list("problem_id", "users"))


def ranked_pool_ids(*, problem_id: Any) -> QuerySet[Submission, Any]:
    """The pools where the problem has ranked results (shown or not), as a subquery of pool ids."""
    return Submission.objects.filter(problem_id=problem_id, entry__ranked_score_ms__isnull=False).values("pool_id")


def listed_results(*, problem_id: Any, pool_id: Any) -> QuerySet[Submission]:
    """Every shown ranked result of a problem on a pool (all of a user's, not only their best)."""
    return Submission.objects.filter(LISTED, problem_id=problem_id, pool_id=pool_id)


def leaderboard_rows(*, problem_id: Any, pool_id: Any, limit: int = 100) -> list[Submission]:
    """Each user's best shown ranked result, fastest first; equal scores rank by who submitted first,
    each with its `entry` and `speedup_view` (leaderboard.speedup). Two queries; the position in the list
    is the rank."""
    best = (listed_results(problem_id=problem_id, pool_id=pool_id)
            .annotate(user_rank=Window(RowNumber(), partition_by=[F("user_id")],
                                       order_by=[F("entry__ranked_score_ms").asc(), F("created_at").asc(),
                                                 F("id").asc()]))
            .filter(user_rank=1)
            .select_related("user", "entry")
            .only("id", "entry__ranked_score_ms", "entry__ranked_ci95_lo_ms", "entry__ranked_ci95_hi_ms",
                  "entry__ranked_speedup", "entry__ranked_at", "entry__public_source", "entry__review",
                  "created_at", "language", "user__username", "user_id", "judging_id", "problem_version_id")
            .order_by("entry__ranked_score_ms", "created_at", "id"))
    rows: list[Submission] = list(best[:limit])
    views = ranked_speedups(submissions=rows)
    for row in rows:
        row.speedup_view = views.get(row.pk)  # type: ignore[attr-defined]
    return rows


def _ahead(submission: Submission) -> Q:
    score = entry_of(submission).ranked_score_ms
    return Q(entry__ranked_score_ms__lt=score) | Q(entry__ranked_score_ms=score, created_at__lt=submission.created_at)


def submission_listed(submission: Submission) -> bool:
    """LISTED, for a row already loaded."""
    entry = entry_of(submission)
    return (entry.ranked_score_ms is not None and entry.invalidated_at is None
            and entry.withdrawn_at is None and not submission.emulated and entry.review != Review.HELD)


def submission_rank(*, submission: Submission) -> int | None:
    """The submission's place on its problem's leaderboard of its pool, or None when it is not
    shown there (not ranked, held, invalidated, withdrawn, or its owner has a better result)."""
    if not submission_listed(submission):
        return None
    listed = listed_results(problem_id=submission.problem_id, pool_id=submission.pool_id)
    if listed.filter(_ahead(submission), user_id=submission.user_id).exists():
        return None
    return 1 + listed.filter(_ahead(submission)).exclude(user_id=submission.user_id).values(
        "user_id").distinct().count()


def public_source_submission(*, submission_id: Any) -> Submission | None:
    """A submission whose owner made its source public, for anyone; an invalidated one stays hidden."""
    return (Submission.objects.select_related("problem", "pool", "user")
            .filter(pk=submission_id, entry__public_source=True, entry__invalidated_at__isnull=True).first())


@dataclass(frozen=True)
class Standing:
    """Where a submission stands on the leaderboard, as its owner (and staff) may read it."""

    # not_entered | pending | confirming | not_ranked | invalidated | under_review | withdrawn | ranked | outranked
    state: str
    reason: str = ""
    rank: int | None = None


def confirmation_pending(*, submission: Submission) -> bool:
    """A record of its current judging waits for its second judging, or that judging is running
    (leaderboard.records): its ranked number is not settled yet, and the page goes on following it.
    One query, none where the caller loaded `judging` with the row."""
    if submission.mode != Mode.LEADERBOARD or submission.judging_id is None:
        return False
    if submission.status not in (Status.ACCEPTED, *ACTIVE_STATUSES):
        return False
    if submission.status != Status.ACCEPTED and submission.queue_class != QueueClass.REJUDGE:
        return False  # a confirmation waits in the background class: a user's own judging is none
    judging = submission.judging
    if judging is None:
        return False
    if submission.status == Status.ACCEPTED:
        return judging.record
    return judging.confirms_id is not None


def confirmation_running(*, submission: Submission) -> bool:
    """The second judging of a record is under way: the submission already passed (its first judging
    ended ACCEPTED) and shows so; what runs is the confirmation, not a new verdict."""
    return submission.status in ACTIVE_STATUSES and confirmation_pending(submission=submission)


def submission_standing(*, submission: Submission) -> Standing:
    if submission.mode != Mode.LEADERBOARD:
        return Standing("not_entered", "Only leaderboard submissions rank; this one was not submitted to it.")
    entry = entry_of(submission)
    if entry.invalidated_at is not None:
        return Standing("invalidated", entry.invalidated_reason)
    confirming = confirmation_pending(submission=submission)
    if entry.ranked_score_ms is None:
        if confirming:  # the record's sentence: what it scored once, and that it ranks only when confirmed
            return Standing("confirming", entry.ranked_reason)
        if submission.status in ACTIVE_STATUSES:
            return Standing("pending", entry.ranked_reason or "The ranked pass has not finished yet.")
        return Standing("not_ranked", entry.ranked_reason or submission.status_reason)
    if entry.review == Review.HELD:
        return Standing("under_review", entry.review_reason)
    if entry.withdrawn_at is not None:
        return Standing("withdrawn", "Its owner withdrew it from the leaderboard.")
    rank = submission_rank(submission=submission)
    if rank is None:
        return Standing("outranked", "Another submission of the same user ranks higher; the leaderboard shows each "
                                     "user's best.")
    said = f"Rank {rank} on pool {submission.pool.name!r}."
    if entry.review == Review.PENDING:
        said += " " + entry.review_reason
    if confirming and entry.ranked_reason:  # a rejudge's new record: the earlier result ranks meanwhile
        said += " " + entry.ranked_reason
    return Standing("ranked", said, rank)


def submission_ranked(*, submission: Submission) -> dict[str, Any] | None:
    """The ranked result that counts, with the cases of the judging that produced it (one query)."""
    entry = entry_of(submission)
    if entry.ranked_score_ms is None:
        return None
    # The judging whose result shows: the latest with the shown score (its value is copied from there),
    # not a newer one whose result waits for review, nor the faster of a record's two judgings.
    cases = list(RankedCaseResult.objects.filter(judging__submission=submission,
                                                 judging__ranked_score_ms=entry.ranked_score_ms)
                 .order_by("-judging__number", "index"))
    latest = cases[0].judging_id if cases else None
    interval = None if entry.ranked_ci95_lo_ms is None or entry.ranked_ci95_hi_ms is None else [
        entry.ranked_ci95_lo_ms, entry.ranked_ci95_hi_ms]
    shown = [c for c in cases if c.judging_id == latest]
    return {"score_ms": entry.ranked_score_ms, "speedup": entry.ranked_speedup, "ci95_ms": interval,
            "ranked_at": entry.ranked_at, "cases": shown,
            "speedup_view": speedup_of(value=entry.ranked_speedup, cases=shown)}

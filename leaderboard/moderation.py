"""Who may see a ranked result: staff approve a result held for review, invalidate a submission
with a reason (hidden from the leaderboard, never deleted, its owner reads why) or restore it;
owners withdraw their own submissions from the leaderboard (and undo it) and choose whether
anyone may read their source."""

from __future__ import annotations

import logging
import uuid

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from core.exceptions import ApplicationError, ConflictError, NotFoundError
from core.logs import log_event_on_commit
from leaderboard.entries import entry_locked
from leaderboard.models import LeaderboardEntry, Review
from leaderboard.records import judging_that_ranks
from submissions.models import Judging, Mode, Submission
from submissions.services import lock_submission

log = logging.getLogger(__name__)
MAX_REASON = 500


def _locked(submission_id: uuid.UUID | str) -> tuple[Submission, LeaderboardEntry]:
    submission = lock_submission(submission_id)
    if submission is None:
        raise NotFoundError("No such submission.")
    return submission, entry_locked(submission)


def _logged(action: str, submission: Submission, by: User, reason: str = "") -> None:
    log_event_on_commit(log, f"submission.{action}", "submission %s %s by %s%s", submission.pk, action, by.pk,
                        f": {reason}" if reason else "", submission=submission.pk, user=submission.user_id)


def _take_held_rejudge(submission: Submission, entry: LeaderboardEntry) -> list[str]:
    """The held result of the submission's last judging (a rejudge, or a record's confirmation: the
    slower of the two judgings) becomes the one that shows."""
    current = Judging.objects.filter(pk=submission.judging_id).first() if submission.judging_id is not None else None
    judging = judging_that_ranks(current) if current is not None else None
    if judging is None:
        raise ConflictError("The held result of this submission's rejudge is gone.")
    entry.ranked_score_ms, entry.ranked_speedup = judging.ranked_score_ms, judging.ranked_speedup
    entry.ranked_ci95_lo_ms, entry.ranked_ci95_hi_ms = judging.ranked_ci95_lo_ms, judging.ranked_ci95_hi_ms
    entry.ranked_at, entry.ranked_reason = timezone.now(), ""
    return ["ranked_score_ms", "ranked_speedup", "ranked_ci95_lo_ms", "ranked_ci95_hi_ms", "ranked_at", "ranked_reason"]


def submission_approve(*, submission_id: uuid.UUID | str, by: User) -> Submission:
    """Staff let a result held for review onto the leaderboard (a rejudge's held result takes the
    place of the earlier one)."""
    with transaction.atomic():
        submission, entry = _locked(submission_id)
        if entry.review not in (Review.HELD, Review.PENDING):
            raise ConflictError("This submission's result is not under review.", {"review": entry.review})
        fields = ["review", "reviewed_by", "reviewed_at"]
        if entry.review == Review.PENDING:
            fields += _take_held_rejudge(submission, entry)
        entry.review, entry.reviewed_by, entry.reviewed_at = Review.APPROVED, by, timezone.now()
        entry.save(update_fields=fields)
        _logged("approved", submission, by)
    return submission


def submission_invalidate(*, submission_id: uuid.UUID | str, by: User, reason: str) -> Submission:
    """Staff take a submission off every leaderboard for good (until restored); the row, its
    judgings and its events stay, and its owner reads the reason."""
    reason = " ".join(str(reason or "").split())
    if not reason:
        raise ApplicationError("reason: say why (the submission's owner reads it).", {"field": "reason"})
    if len(reason) > MAX_REASON:
        raise ApplicationError(f"reason: at most {MAX_REASON} characters.", {"field": "reason"})
    with transaction.atomic():
        submission, entry = _locked(submission_id)
        entry.invalidated_at, entry.invalidated_by = timezone.now(), by
        entry.invalidated_reason = reason
        entry.save(update_fields=["invalidated_at", "invalidated_by", "invalidated_reason"])
        _logged("invalidated", submission, by, reason)
    return submission


def submission_restore(*, submission_id: uuid.UUID | str, by: User) -> Submission:
    """Undo an invalidation."""
    with transaction.atomic():
        submission, entry = _locked(submission_id)
        if entry.invalidated_at is None:
            raise ConflictError("This submission is not invalidated.")
        entry.invalidated_at, entry.invalidated_by, entry.invalidated_reason = None, None, ""
        entry.save(update_fields=["invalidated_at", "invalidated_by", "invalidated_reason"])
        _logged("restored", submission, by)
    return submission


def submission_update(*, user: User, submission_id: uuid.UUID | str, withdrawn: bool | None = None,
                      public_source: bool | None = None) -> Submission:
    """The owner withdraws their submission from the leaderboard (or puts it back) and says whether
    its source is public. Nobody else may: others get 404, as for any lookup of what is not theirs."""
    with transaction.atomic():
        submission = lock_submission(submission_id)
        if submission is None or submission.user_id != user.pk:
            raise NotFoundError("No such submission.")
        entry = entry_locked(submission)
        fields = []
        if withdrawn is not None:
            if submission.mode != Mode.LEADERBOARD:
                raise ConflictError("Only leaderboard submissions can be withdrawn from the leaderboard.",
                                    {"mode": submission.mode})
            if withdrawn != (entry.withdrawn_at is not None):
                entry.withdrawn_at = timezone.now() if withdrawn else None
                fields.append("withdrawn_at")
        if public_source is not None and public_source != entry.public_source:
            entry.public_source = public_source
            fields.append("public_source")
        if fields:
            entry.save(update_fields=fields)
    return submission

"""Rejudge: staff run submissions through the judge again (a new problem version, a new anti-cheat
rule), one, a user's, or a whole problem's. Each gets a new judging against the problem's current
version (a new secret seed for the ranked pass) and waits in the fair queue's background class:
after every user's own submission, charged to the platform, not to its owner. Earlier judgings stay
as the submission's history; its ranked result counts until the rejudge reaches a verdict. A record's
confirmation (leaderboard.records) is a judging of the same kind, queued by the platform itself."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from core.exceptions import ApplicationError
from core.queue import enqueue
from fleets.models import VMInstance, VMState
from leaderboard.entries import entry_of
from submissions.judgings import judging_new
from submissions.models import (
    ACTIVE_STATUSES,
    VERDICT_STATUSES,
    Judging,
    Mode,
    Problem,
    QueueClass,
    Status,
    Submission,
)
from submissions.ranking import pool_device_class, ranked_case_names
from submissions.services import EventIn, append_events_locked, lock_submission, log_status

MAX_REASON = 500


@dataclass
class RejudgeReport:
    queued: list[uuid.UUID] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # submission id -> why


def rejudge_targets(*, submission_ids: list[str] | None = None, username: str | None = None,
                    problem: str | None = None) -> QuerySet[Submission]:
    """What a rejudge covers. Named submissions, whatever they are; a user's or a problem's (both
    given: that user's on that problem): their leaderboard submissions that reached a verdict and
    are not invalidated. Raises ApplicationError naming the bad argument."""
    if not (submission_ids or username or problem):
        raise ApplicationError("Say what to rejudge: submissions, a user or a problem.")
    qs = Submission.objects.all()
    if submission_ids:
        try:
            ids = [uuid.UUID(str(value)) for value in submission_ids]
        except ValueError:
            raise ApplicationError("submission: not a submission id.", {"field": "submission"}) from None
        qs = qs.filter(pk__in=ids)
    if username or problem:
        qs = qs.filter(mode=Mode.LEADERBOARD, status__in=VERDICT_STATUSES, entry__invalidated_at__isnull=True)
    if username:
        if not get_user_model().objects.filter(username=username).exists():
            raise ApplicationError(f"user: there is no user {username!r}.", {"field": "user"})
        qs = qs.filter(user__username=username)
    if problem:
        if not Problem.objects.filter(slug=problem).exists():
            raise ApplicationError(f"problem: there is no problem {problem!r}.", {"field": "problem"})
        qs = qs.filter(problem__slug=problem)
    return qs.order_by("created_at", "id")


def _refusal(submission: Submission) -> str | None:
    """Why this submission cannot be rejudged now, or None."""
    if submission.status in ACTIVE_STATUSES:
        return "it is being judged right now"
    if submission.status == Status.REJECTED:
        return "it was refused when submitted and never judged"
    version = submission.problem.current_version
    if version is None:
        return f"problem {submission.problem.slug!r} has no current version"
    if submission.mode == Mode.LEADERBOARD and not ranked_case_names(
            definition=(version.bundle or {}).get("definition") or {},
            device_class=pool_device_class(submission.pool)):
        return (f"the current version of {submission.problem.slug!r} has no ranked cases for pool "
                f"{submission.pool.name!r}")
    return None


def _queue_again(submission_id: Any, *, by: User | None, reason: str) -> str | None:
    """Queue one submission for a rejudge (its row locked); returns why not, or None when queued."""
    with transaction.atomic():
        submission = lock_submission(submission_id)
        if submission is None:
            return "no such submission"
        refusal = _refusal(submission)
        if refusal:
            return refusal
        assert submission.problem.current_version_id is not None
        submission.problem_version_id = submission.problem.current_version_id
        judging = judging_new(submission=submission, kind=QueueClass.REJUDGE, reason=reason, by=by)
        judging.save(force_insert=True)
        _judge_again_locked(submission, judging, EventIn("REJUDGE", {
            "judging": judging.number, "reason": reason,
            "problem_version": submission.problem.current_version.content_hash
            if submission.problem.current_version else ""}),
            log_reason=f"rejudge #{judging.number} by {by.pk if by else 'the command line'}: {reason}")
    return None


def submission_confirm_record(*, submission_id: Any, judging_id: Any) -> bool:
    """Queue the second judging that confirms the record judging `judging_id` set (leaderboard.records):
    the same problem version, a new secret seed, the background class, another VM where the pool has
    one. A no-op (False) unless the submission still ends with that record judging, ACCEPTED, and its VM
    was given back (until then that time is the owner's, and billing reads who pays from the
    submission): safe to run twice."""
    with transaction.atomic():
        submission = lock_submission(submission_id)
        if submission is None or str(submission.judging_id) != str(judging_id) or submission.status != Status.ACCEPTED:
            return False
        if not Judging.objects.filter(pk=judging_id, record=True).exists() or VMInstance.objects.filter(
                state__in=(VMState.BUSY, VMState.DRAINING), job_ref=str(submission.pk)).exists():
            return False
        judging = judging_new(submission=submission, kind=QueueClass.REJUDGE, reason=CONFIRMATION_REASON)
        judging.confirms_id, judging.avoid_vm = submission.judging_id, submission.vm_id
        judging.save(force_insert=True)
        _judge_again_locked(submission, judging, EventIn("RECORD_CONFIRMATION", {
            "judging": judging.number, "reason": entry_of(submission).ranked_reason}),
            log_reason=f"confirming the record of judging {judging.number - 1}")
    return True


CONFIRMATION_REASON = "A record is confirmed by a second judging on a new secret seed before it ranks."


def _judge_again_locked(submission: Submission, judging: Judging, event: EventIn, *, log_reason: str) -> None:
    """Make `judging` (saved) the locked submission's current one and queue it in the background class."""
    submission.judging, submission.queue_class = judging, QueueClass.REJUDGE
    submission.status, submission.status_reason = Status.IN_QUEUE, ""
    submission.score_ms, submission.summary = None, {}
    submission.vm, submission.vm_start, submission.cancel_requested = None, "", False
    submission.queued_at, submission.dispatched_at, submission.started_at, submission.finished_at = (
        timezone.now(), None, None, None)
    submission.lease_owner, submission.lease_expires_at = "", None
    submission.save(update_fields=[
        "problem_version", "judging", "queue_class", "status", "status_reason", "score_ms", "summary", "vm",
        "vm_start", "cancel_requested", "queued_at", "dispatched_at", "started_at", "finished_at", "lease_owner",
        "lease_expires_at"])
    append_events_locked(submission, [event, EventIn("STATUS", {"status": Status.IN_QUEUE,
                                                                "pool": submission.pool.name})])
    log_status(submission, Status.IN_QUEUE, reason=log_reason)
    pool_id = str(submission.pool_id)
    transaction.on_commit(lambda: enqueue("submissions.tasks.dispatch", pool_id, save=False))


def submissions_rejudge(*, by: User | None, reason: str, submission_ids: list[str] | None = None,
                        username: str | None = None, problem: str | None = None) -> RejudgeReport:
    """Rejudge what `rejudge_targets` selects; each submission is queued (or skipped, with why) on
    its own, so a failure halfway leaves every one either queued or as it was."""
    reason = " ".join(str(reason or "").split())
    if not reason:
        raise ApplicationError("reason: say why (its owner reads it in the submission's history).",
                               {"field": "reason"})
    if len(reason) > MAX_REASON:
        raise ApplicationError(f"reason: at most {MAX_REASON} characters.", {"field": "reason"})
    targets = rejudge_targets(submission_ids=submission_ids, username=username, problem=problem)
    report = RejudgeReport()
    found = set()
    for submission_id in targets.values_list("pk", flat=True):
        found.add(str(submission_id))
        refusal = _queue_again(submission_id, by=by, reason=reason)
        if refusal:
            report.skipped[str(submission_id)] = refusal
        else:
            report.queued.append(submission_id)
    for missing in {str(uuid.UUID(str(s))) for s in submission_ids or []} - found:
        report.skipped[missing] = "no such submission"
    return report

"""Writes for submissions: create (validation, quotas), cancel, events, finish, re-queue.

Every change to a submission's status happens with its row locked (SELECT ... FOR UPDATE on
PostgreSQL, an IMMEDIATE transaction on SQLite) together with the event that tells it, so the
event stream and the row never disagree and `seq` is gap-free.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from billing.guards import PaymentRequired, submission_refusal
from config.exceptions import ApplicationError, ConflictError, NotFoundError, QuotaExceeded
from config.queue import enqueue
from fleets.models import Fleet
from submissions.lookups import pool_for_submission, problem_for_submission
from submissions.models import (
    ACTIVE_STATUSES,
    TERMINAL_STATUSES,
    Language,
    Mode,
    Problem,
    Status,
    Submission,
    SubmissionEvent,
)
from submissions.selectors import user_quota

log = logging.getLogger(__name__)

# What a terminal status means when nobody gave a more precise reason.
DEFAULT_REASONS = {
    Status.ACCEPTED: "Every test passed and the benchmark completed.",
    Status.CHECKED: "Every test passed.",
    Status.COMPILED: "The source compiled.",
    Status.WRONG_ANSWER: "A test produced a wrong result.",
    Status.COMPILE_ERROR: "The source did not compile.",
    Status.RUNTIME_ERROR: "The program crashed while running.",
    Status.TIME_LIMIT_EXCEEDED: "The program ran past its time limit.",
    Status.CANCELLED: "The submission was cancelled.",
    Status.ERROR: "The judge failed; this is not your fault.",
    Status.REJECTED: "The submission was not accepted.",
}


@dataclass
class EventIn:
    type: str
    payload: dict[str, Any] = field(default_factory=dict)
    at: datetime | None = None
    attempt: int = 0
    agent_seq: int | None = None


# ---- events ------------------------------------------------------------------------------------
def lock_submission(submission_id: uuid.UUID | str) -> Submission | None:
    """The row, locked until the surrounding transaction ends (call inside transaction.atomic)."""
    return Submission.objects.select_for_update().filter(pk=submission_id).first()


def _event_rows(submission: Submission, events: list[EventIn], *, after: int) -> list[SubmissionEvent]:
    """The events as rows numbered from after + 1 (not saved)."""
    now = timezone.now()
    return [SubmissionEvent(submission=submission, seq=after + offset, type=event.type,
                            payload=event.payload, at=event.at or now, attempt=event.attempt,
                            agent_seq=event.agent_seq)
            for offset, event in enumerate(events, start=1)]


def append_events_locked(submission: Submission, events: list[EventIn]) -> list[SubmissionEvent]:
    """Number and store events of a submission whose row the caller holds locked."""
    rows = _event_rows(submission, events, after=submission.last_seq)
    if rows:
        SubmissionEvent.objects.bulk_create(rows)
        submission.last_seq += len(rows)
        Submission.objects.filter(pk=submission.pk).update(last_seq=submission.last_seq)
    return rows


def finish_locked(submission: Submission, *, status: str, reason: str, score_ms: float | None = None,
                  summary: dict[str, Any] | None = None, event: EventIn | None = None) -> None:
    """End a locked, still active submission with a status and a sentence; writes the RESULT event."""
    if submission.status in TERMINAL_STATUSES:
        return
    reason = reason.strip() or DEFAULT_REASONS.get(Status(status), "")
    submission.status = status
    submission.status_reason = reason
    submission.score_ms = score_ms
    submission.summary = summary or {}
    submission.finished_at = timezone.now()
    submission.lease_owner, submission.lease_expires_at = "", None
    submission.save(update_fields=["status", "status_reason", "score_ms", "summary", "finished_at",
                                   "lease_owner", "lease_expires_at"])
    result = event or EventIn("RESULT")
    result.type = "RESULT"
    result.payload = {**result.payload, "status": status, "reason": reason, "score_ms": score_ms,
                      "summary": summary or {}}
    append_events_locked(submission, [result])


def submission_finish(*, submission_id: uuid.UUID | str, status: str, reason: str) -> bool:
    with transaction.atomic():
        submission = lock_submission(submission_id)
        if submission is None or submission.status in TERMINAL_STATUSES:
            return False
        finish_locked(submission, status=status, reason=reason)
    return True


# ---- create ------------------------------------------------------------------------------------
def _validate_source(source: Any) -> str:
    if not isinstance(source, str):
        raise ApplicationError("source: must be text.", {"field": "source"})
    if not source.strip():
        raise ApplicationError("source: is empty.", {"field": "source"})
    if "\x00" in source:
        raise ApplicationError("source: contains a NUL character.", {"field": "source"})
    try:
        size = len(source.encode("utf-8"))
    except UnicodeEncodeError:
        raise ApplicationError("source: is not valid UTF-8.", {"field": "source"}) from None
    limit = settings.HIPJUDGE_MAX_SOURCE_BYTES
    if size > limit:
        raise ApplicationError(f"source: is {size} bytes; the limit is {limit} bytes.",
                               {"field": "source", "limit_bytes": limit})
    return source


def _resolve(problem_slug: str, pool: str | None, language: str, mode: str) -> tuple[Problem, Fleet]:
    if language not in Language.values:
        raise ApplicationError(f"language: {language!r} is not one of {', '.join(Language.values)}.",
                               {"field": "language"})
    if mode not in Mode.values:
        raise ApplicationError(f"mode: {mode!r} is not one of {', '.join(Mode.values)}.", {"field": "mode"})
    problem = problem_for_submission(slug=problem_slug)
    if problem is None or problem.current_version is None:
        raise ApplicationError(f"problem: there is no problem {problem_slug!r}.", {"field": "problem"})
    pool_name = pool or settings.HIPJUDGE_DEFAULT_POOL
    fleet = pool_for_submission(name=pool_name)
    if fleet is None:
        raise ApplicationError(f"pool: there is no pool {pool_name!r} taking submissions.", {"field": "pool"})
    accepted = fleet.accepted_languages
    if language not in accepted:
        compile_only = fleet.compile_only_languages
        if language not in compile_only:
            raise ApplicationError(f"language: pool {fleet.name!r} runs {', '.join(accepted)}, not {language}.",
                                   {"field": "language", "accepted": accepted})
        if mode != Mode.COMPILE:
            raise ApplicationError(
                f"language: pool {fleet.name!r} can only compile-check {language} (mode compile); it runs "
                f"{', '.join(accepted)}.",
                {"field": "language", "accepted": accepted, "compile_only": compile_only})
    return problem, fleet


def _quota_problem(user: User) -> str | None:
    quota = user_quota(user_id=user.pk)  # one query; the daily limit is still reported first
    if quota["daily_used"] >= quota["daily_limit"]:
        return f"You reached the limit of {quota['daily_limit']} submissions in 24 hours; try again later."
    if quota["concurrent_used"] >= quota["concurrent_limit"]:
        return (f"You already have {quota['concurrent_limit']} submission(s) queued or running; "
                "wait for one to finish or cancel it.")
    return None


def submission_create(*, user: User, problem: str, language: str, source: Any,
                      mode: str = Mode.BENCHMARK, pool: str | None = None) -> Submission:
    """Validate and queue a submission. Raises ApplicationError (400) for bad input and
    QuotaExceeded (429) over a quota, in which case a REJECTED submission is kept as the record."""
    source = _validate_source(source)
    problem_obj, fleet = _resolve(problem, pool, language, mode)
    now = timezone.now()
    with transaction.atomic():
        # Serialize one user's submissions so two simultaneous requests cannot both pass the quota.
        list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True))
        over = _quota_problem(user)
        # Out of GPU credit or over the user's monthly spend cap on a paid pool: REJECTED too (402).
        unpaid = None if over is not None else submission_refusal(user=user, fleet=fleet)
        assert problem_obj.current_version is not None  # checked by _resolve
        submission = Submission(
            user=user, problem=problem_obj, problem_version=problem_obj.current_version, fleet=fleet,
            language=language, mode=mode, source=source, queued_at=now, status=Status.IN_QUEUE)
        if over is not None or unpaid is not None:  # kept as the record of the refusal; never queued
            submission.save(force_insert=True)
            finish_locked(submission, status=Status.REJECTED, reason=over or unpaid or "")
        else:
            # Inserted with its first event already counted in last_seq: no UPDATE after the event.
            rows = _event_rows(submission, [EventIn("STATUS", {"status": Status.IN_QUEUE, "pool": fleet.name})],
                               after=0)
            submission.last_seq = len(rows)
            submission.save(force_insert=True)
            SubmissionEvent.objects.bulk_create(rows)
            transaction.on_commit(lambda: enqueue("submissions.tasks.dispatch", str(fleet.pk), save=False))
    if over is not None:
        raise QuotaExceeded(over, {"submission": str(submission.pk), "status": Status.REJECTED})
    if unpaid is not None:
        raise PaymentRequired(unpaid, {"submission": str(submission.pk), "status": Status.REJECTED})
    return submission


# ---- cancel ------------------------------------------------------------------------------------
def submission_cancel(*, user: User, submission_id: uuid.UUID | str) -> Submission:
    """The owner (or staff) stops a submission: a queued one ends at once; a running one asks the
    agent to kill the job and ends CANCELLED when the agent confirms (the poller records it)."""
    with transaction.atomic():
        submission = lock_submission(submission_id)
        if submission is None or not (submission.user_id == user.pk or getattr(user, "is_staff", False)):
            raise NotFoundError("No such submission.")
        if submission.status in TERMINAL_STATUSES:
            raise ConflictError(f"The submission already ended ({submission.status}).",
                                {"status": submission.status})
        who = "its owner" if submission.user_id == user.pk else "staff"
        if submission.status == Status.IN_QUEUE:
            finish_locked(submission, status=Status.CANCELLED, reason=f"Cancelled by {who} before it started.")
        elif not submission.cancel_requested:
            submission.cancel_requested = True
            submission.save(update_fields=["cancel_requested"])
            append_events_locked(submission, [EventIn("CANCEL_REQUESTED", {"by": who})])
            transaction.on_commit(lambda: enqueue("submissions.tasks.cancel_job", str(submission.pk), timeout=60))
    submission.refresh_from_db()
    return submission


# ---- VM lost, re-queue -------------------------------------------------------------------------
def submission_requeue_or_fail(*, submission_id: uuid.UUID | str, reason: str,
                               vm_id: uuid.UUID | str | None = None, attempt: int | None = None,
                               give_up_status: str = Status.ERROR) -> bool:
    """The VM serving this submission is gone. Queue it again while attempts remain, else end it
    with `give_up_status` (ERROR; REJECTED when the pool had no capacity).
    No-op unless it is still active (and, when given, still on `vm_id` / at `attempt`)."""
    fleet_id = None
    with transaction.atomic():
        submission = lock_submission(submission_id)
        if submission is None or submission.status not in ACTIVE_STATUSES or submission.status == Status.IN_QUEUE:
            return False
        if vm_id is not None and str(submission.vm_id) != str(vm_id):
            return False
        if attempt is not None and submission.attempt != attempt:
            return False
        if submission.cancel_requested:
            finish_locked(submission, status=Status.CANCELLED,
                          reason=f"Cancelled; the VM was lost meanwhile ({reason}).")
        elif submission.attempt >= settings.HIPJUDGE_MAX_ATTEMPTS:
            finish_locked(submission, status=give_up_status,
                          reason=f"{reason} Gave up after {submission.attempt} attempts.")
        else:
            submission.status, submission.vm, submission.vm_start = Status.IN_QUEUE, None, ""
            submission.lease_owner, submission.lease_expires_at = "", None
            submission.save(update_fields=["status", "vm", "vm_start", "lease_owner", "lease_expires_at"])
            append_events_locked(submission, [EventIn("REQUEUED", {"reason": reason, "attempt": submission.attempt}),
                                              EventIn("STATUS", {"status": Status.IN_QUEUE})])
            fleet_id = submission.fleet_id
    if fleet_id is not None:
        transaction.on_commit(lambda: enqueue("submissions.tasks.dispatch", str(fleet_id), save=False))
    return True

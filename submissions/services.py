"""Writes for submissions: create (validation, then the admission gate), cancel, events, finish, re-queue.

Every change to a submission's status happens with its row locked (SELECT ... FOR UPDATE on
PostgreSQL, an IMMEDIATE transaction on SQLite) together with the event that tells it, so the
event stream and the row never disagree and `seq` is gap-free.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from agent.protocol import cut_text, json_safe
from core import clock
from core.exceptions import ApplicationError, ConflictError, NotFoundError
from core.locks import locked
from core.logs import log_event_on_commit
from core.queue import enqueue
from fleets.models import Pool
from fleets.prewarm_services import pool_arrival_record
from limits.admission import submission_refusal
from submissions.judgings import (
    finish_outcome,
    judging_attempts,
    judging_close_locked,
    judging_new,
    judging_reseed_locked,
)
from submissions.lookups import pool_for_submission, problem_for_submission
from submissions.models import (
    ACTIVE_STATUSES,
    OPTIONAL_LANGUAGES,
    TERMINAL_STATUSES,
    Language,
    Mode,
    Problem,
    QueueClass,
    Status,
    Submission,
    SubmissionEvent,
)
from submissions.offers import is_emulated, offer_refusal
from submissions.ranking import pool_device_class, ranked_case_names

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


# Statuses whose reason the platform wrote itself (IN_QUEUE: why it was queued again); a verdict's
# reason may quote the compiler's output, which quotes the source, so it never reaches the logs.
_LOGGED_REASONS = (Status.IN_QUEUE, Status.ERROR, Status.REJECTED, Status.CANCELLED)


def log_status(submission: Submission, status: str, *, reason: str = "") -> None:
    """The structured log line of a status change, written once the change commits."""
    said = f": {reason}" if reason and status in _LOGGED_REASONS else ""
    log_event_on_commit(log, "submission.status", "submission %s -> %s%s", submission.pk, status, said,
                        level=logging.WARNING if status == Status.ERROR else logging.INFO,
                        submission=submission.pk, pool=submission.pool_id, vm=submission.vm_id,
                        user=submission.user_id, status=status, attempt=submission.attempt)


# ---- events ------------------------------------------------------------------------------------
def lock_submission(submission_id: uuid.UUID | str) -> Submission | None:
    """The row, locked until the surrounding transaction ends (call inside transaction.atomic)."""
    return locked(Submission.objects.filter(pk=submission_id)).first()


def _event_rows(submission: Submission, events: list[EventIn], *, after: int) -> list[SubmissionEvent]:
    """The events as rows numbered from after + 1 (not saved)."""
    now = clock.now()
    return [SubmissionEvent(submission=submission, seq=after + offset, type=event.type,
                            payload=json_safe(event.payload), at=event.at or now, attempt=event.attempt,
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
    # A reason may quote what the user's program or the compiler said: never store more than a sentence.
    summary = json_safe(summary or {})
    status, reason, ranked = finish_outcome(submission=submission, status=status, reason=reason, summary=summary)
    reason = cut_text(reason.strip(), "reason") or DEFAULT_REASONS.get(Status(status), "")
    submission.status = status
    submission.status_reason = reason
    submission.score_ms = score_ms
    submission.summary = summary or {}
    submission.finished_at = clock.now()
    submission.lease_owner, submission.lease_expires_at = "", None
    judging_close_locked(submission=submission, ranked=ranked)
    submission.save(update_fields=["status", "status_reason", "score_ms", "summary", "finished_at",
                                   "lease_owner", "lease_expires_at"])
    log_status(submission, status, reason=reason)
    result = event or EventIn("RESULT")
    result.type = "RESULT"
    result.payload = {**result.payload, "status": status, "reason": reason, "score_ms": score_ms,
                      "summary": summary or {}}
    append_events_locked(submission, [result])


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


def source_from_upload(upload: IO[bytes]) -> str:
    """The text of an uploaded source file. At most the limit (+1 byte) is read, so a huge upload
    is refused without reading it all; the text then goes through submission_create's checks."""
    limit = settings.HIPJUDGE_MAX_SOURCE_BYTES
    raw = upload.read(limit + 1)
    if len(raw) > limit:
        raise ApplicationError(f"source: the file is larger than the limit of {limit} bytes.",
                               {"field": "source", "limit_bytes": limit})
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ApplicationError("source: the file is not valid UTF-8.", {"field": "source"}) from None


def _resolve(problem_slug: str, pool_name: str | None, language: str, mode: str) -> tuple[Problem, Pool]:
    if language not in Language.values:
        raise ApplicationError(f"language: {language!r} is not one of {', '.join(Language.values)}.",
                               {"field": "language"})
    if mode not in Mode.values:
        raise ApplicationError(f"mode: {mode!r} is not one of {', '.join(Mode.values)}.", {"field": "mode"})
    problem = problem_for_submission(slug=problem_slug)
    if problem is None or problem.current_version is None:
        raise ApplicationError(f"problem: there is no problem {problem_slug!r}.", {"field": "problem"})
    offered = problem.current_version.templates or {}
    if language not in offered and language in OPTIONAL_LANGUAGES:
        raise ApplicationError(f"language: problem {problem_slug!r} takes no {language} submissions (it has no "
                               f"{language} template); it takes {', '.join(sorted(offered))}.", {"field": "language"})
    name = pool_name or settings.HIPJUDGE_DEFAULT_POOL
    pool = pool_for_submission(name=name)
    if pool is None:
        raise ApplicationError(f"pool: there is no pool {name!r} taking submissions.", {"field": "pool"})
    refusal = offer_refusal(pool=pool, language=language, mode=mode)
    if refusal is not None:
        raise refusal
    if mode == Mode.LEADERBOARD:
        assert problem.current_version is not None
        device_class = pool_device_class(pool)
        if not ranked_case_names(definition=(problem.current_version.bundle or {}).get("definition") or {},
                                 device_class=device_class):
            raise ApplicationError(
                f"mode: problem {problem.slug!r} has no ranked cases for the {device_class} device of pool "
                f"{pool.name!r}, so it takes no leaderboard submissions there; use mode benchmark.",
                {"field": "mode"})
    return problem, pool


def submission_create(*, user: User, problem: str, language: str, source: Any,
                      mode: str = Mode.BENCHMARK, pool_name: str | None = None) -> Submission:
    """Validate and queue a submission. Raises ApplicationError: 400 for bad input; a refusal of the
    admission gate (limits.admission: 403 suspended or pool not open to the user, 429 over a quota
    or the daily GPU-seconds cap, 402 out of credit or over the monthly spend cap) stores nothing:
    refused requests cannot grow the database."""
    source = _validate_source(source)
    problem_obj, pool = _resolve(problem, pool_name, language, mode)
    now = clock.now()
    with transaction.atomic():
        # The gate locks the user's row until this transaction, which stores the submission, commits.
        refusal = submission_refusal(user=user, pool=pool, now=now)
        if refusal is not None:
            log.info("refused a submission of user %s to pool %s: %s", user.pk, pool.name, refusal.extra["limit"])
            raise refusal
        assert problem_obj.current_version is not None  # checked by _resolve
        submission = Submission(
            user=user, problem=problem_obj, problem_version=problem_obj.current_version, pool=pool,
            language=language, mode=mode, source=source, queued_at=now, status=Status.IN_QUEUE,
            emulated=is_emulated(pool=pool, language=language, mode=mode))
        # Inserted pointing at its first judging, which follows in the same transaction (the
        # foreign key is checked at commit), and with its first event already counted in last_seq.
        judging = judging_new(submission=submission)
        submission.judging_id = judging.pk
        rows = _event_rows(submission, [EventIn("STATUS", {"status": Status.IN_QUEUE, "pool": pool.name})], after=0)
        submission.last_seq = len(rows)
        submission.save(force_insert=True)
        judging.save(force_insert=True)
        SubmissionEvent.objects.bulk_create(rows)
        log_status(submission, Status.IN_QUEUE)
        # The pool's demand history (fleets.forecast), after the commit: every submission to a pool
        # counts on one row, and a lock taken on it inside this transaction made the pool's
        # concurrent submissions wait for each other's commit.
        transaction.on_commit(lambda: pool_arrival_record(pool=pool, at=now), robust=True)
        transaction.on_commit(lambda: enqueue("submissions.tasks.dispatch", str(pool.pk), save=False))
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
        if submission.queue_class == QueueClass.REJUDGE and not getattr(user, "is_staff", False):
            raise ConflictError("The platform is judging this submission again (a rejudge, or a record's "
                                "confirmation); only staff can cancel that. You can withdraw "
                                "it from the leaderboard instead.", {"status": submission.status})
        if submission.status == Status.IN_QUEUE:
            finish_locked(submission, status=Status.CANCELLED, reason=f"Cancelled by {who} before it started.")
        elif not submission.cancel_requested:
            submission.cancel_requested = True
            submission.save(update_fields=["cancel_requested"])
            append_events_locked(submission, [EventIn("CANCEL_REQUESTED", {"by": who})])
            transaction.on_commit(lambda: enqueue("submissions.tasks.cancel_job", str(submission.pk), timeout=60))
    submission.refresh_from_db()
    return submission


def user_submissions_cancel(*, user_id: Any, by: User) -> int:
    """Staff suspended `user_id`: cancel each of their active submissions as `by`; how many were."""
    cancelled = 0
    for submission_id in Submission.objects.filter(user_id=user_id, status__in=ACTIVE_STATUSES).values_list(
            "pk", flat=True):
        try:
            submission_cancel(user=by, submission_id=submission_id)
            cancelled += 1
        except (ConflictError, NotFoundError):
            continue  # it ended meanwhile
    return cancelled


# ---- VM lost, re-queue -------------------------------------------------------------------------
def submission_requeue_or_fail(*, submission_id: uuid.UUID | str, reason: str,
                               vm_id: uuid.UUID | str | None = None, attempt: int | None = None,
                               give_up_status: str = Status.ERROR) -> bool:
    """The VM serving this submission is gone. Queue it again while attempts remain, else end it
    with `give_up_status` (ERROR; REJECTED when the pool had no capacity).
    No-op unless it is still active (and, when given, still on `vm_id` / at `attempt`)."""
    pool_id = None
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
        elif (tries := judging_attempts(submission=submission)) >= settings.HIPJUDGE_MAX_ATTEMPTS:
            finish_locked(submission, status=give_up_status, reason=f"{reason} Gave up after {tries} attempts.")
        else:
            submission.status, submission.vm, submission.vm_start = Status.IN_QUEUE, None, ""
            submission.lease_owner, submission.lease_expires_at = "", None
            submission.save(update_fields=["status", "vm", "vm_start", "lease_owner", "lease_expires_at"])
            # The lost attempt may have shown the kernel its secret inputs: the next one draws new ones.
            judging_reseed_locked(submission=submission)
            append_events_locked(submission, [EventIn("REQUEUED", {"reason": reason, "attempt": submission.attempt}),
                                              EventIn("STATUS", {"status": Status.IN_QUEUE})])
            log_status(submission, Status.IN_QUEUE, reason=f"queued again: {reason}")
            pool_id = submission.pool_id
    if pool_id is not None:
        transaction.on_commit(lambda: enqueue("submissions.tasks.dispatch", str(pool_id), save=False))
    return True

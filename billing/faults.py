"""The platform pays for its own faults (DESIGN.md, Billing rules).

Accrual (billing.services) charges a VM's time to the job it serves, or served last, as it happens;
whether that time was the user's is known only once the job has ended. Then, for each accrual entry
that charged the job's user, the part that only a fault of the platform cost is booked to the
platform: a pair of entries (source `platform_fault`) naming the entry, the user's credit (negative
seconds and amount) and the platform's charge (no user). The user's spend and GPU-seconds, hence their
caps, count the credit; the pool's and the platform's totals do not change. A fault, for a job that
ended:

- every attempt but the last (a VM lost mid-job, a runner that crashed: the job was queued again):
  the attempt that gave the result is the one its user pays for;
- the last attempt's cold start, when its first attempt started on a warm VM: without the fault the
  job would have had no cold start (when the first attempt started its own VM, that cold start is
  credited with its attempt and the user pays the last one's instead: one cold start, as without
  the fault);
- on the last attempt's VM, busy time more than RESULT_GRACE_S (5 s) after the job's result: the VM was
  held only because no runner collected the result (a worker died, its lease was lapsing, the sweep
  had not resumed it yet);
- idle time after the job past the longest the pool's policy keeps a warm VM, and the reaper's slack
  (fleets.policy.idle_timeout_bound_s): only a platform that was down keeps a VM up that long (its
  workers stopped; an agent that stopped itself and was found by the reconcile later).

Settling is idempotent (one credit and one charge per entry: unique constraints) and takes the lock
of each VM's accrual cursor, so that no accrual of that VM books an entry meanwhile that it would
miss. It runs after every accrual for the ended jobs that accrual charged (billing.receivers and
ledger_accrue_all): the entries booked once the job ended (its idle tail) are settled as they come.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction

from billing.amounts import cost_of, seconds_between
from billing.models import LedgerEntry, Phase, Source, VMAccrual
from core import clock
from core.locks import locked
from fleets.models import Pool, VMJob
from fleets.policy import idle_timeout_bound_s, needs_snapshot, pool_snapshot
from submissions.models import TERMINAL_STATUSES, QueueClass, Submission

log = logging.getLogger(__name__)

# After the agent ends a job, the runner that polls it stores the result and gives the VM back at once
# (its long poll returns with the result), within a poll's wait (5 s) even on a loaded host: that
# hand-off stays the user's, as does a VM clock a little off.
RESULT_GRACE_S = 5.0
# The reaper stops idle VMs every minute, and one run may start late.
REAPER_SLACK_S = 120.0


@dataclass(frozen=True)
class LastHolding:
    """How the last attempt of a job held its VM: from `start`, busy time after `busy_until` and idle
    time after `idle_until` (when known) were the platform's."""

    vm_id: uuid.UUID
    start: datetime
    busy_until: datetime | None
    idle_until: datetime | None
    cold_start_faults: bool = False  # the last VM's provisioning is the platform's


def _idle_until(pool: Pool, released: datetime) -> datetime | None:
    snapshot = pool_snapshot(pool=pool, now=clock.now()) if needs_snapshot(pool) else None
    bound = idle_timeout_bound_s(pool=pool, snapshot=snapshot)
    return None if bound is None else released + timedelta(seconds=bound + REAPER_SLACK_S)


def last_holding(submission: Submission) -> LastHolding | None:
    """The last attempt's holding, from the pool's job log (fleets.VMJob) and the RESULT event; None
    when the log no longer has it (pruned after two days)."""
    jobs = list(VMJob.objects.filter(job_ref=str(submission.pk)).select_related("vm__pool")
                .order_by("started_at", "id"))
    if not jobs:
        return None
    job = jobs[-1]
    result = submission.events.filter(type="RESULT").order_by("-seq").values_list("at", "recorded_at").first()
    busy_until = None
    if result is not None:  # the agent's clock says when it ended the job; never later than we stored it
        busy_until = max(job.started_at, min(result)) + timedelta(seconds=RESULT_GRACE_S)
    idle_until = _idle_until(job.vm.pool, job.ended_at) if job.ended_at else None
    return LastHolding(vm_id=job.vm_id, start=job.started_at, busy_until=busy_until, idle_until=idle_until,
                       cold_start_faults=job.cold and len(jobs) > 1 and not jobs[0].cold)


def fault_span(entry: LedgerEntry, holding: LastHolding) -> tuple[datetime, datetime, str] | None:
    """The part of an accrual entry charged to the job that only a fault cost (at most one span),
    and why."""
    if entry.vm_id != holding.vm_id or entry.period_end <= holding.start:
        return entry.period_start, entry.period_end, "attempt re-queued"  # an earlier attempt's time
    if entry.phase == Phase.PROVISIONING and holding.cold_start_faults:
        return entry.period_start, entry.period_end, "the cold start a fault caused"
    limit = {Phase.BUSY: holding.busy_until, Phase.IDLE: holding.idle_until}.get(Phase(entry.phase))
    if limit is None:
        return None
    start = max(entry.period_start, limit)
    return (start, entry.period_end, f"{entry.phase} time a fault held") if start < entry.period_end else None


def _pair(entry: LedgerEntry, span: tuple[datetime, datetime, str]) -> list[LedgerEntry]:
    start, end, why = span
    whole = (start, end) == (entry.period_start, entry.period_end)
    seconds = entry.seconds if whole else seconds_between(start, end)
    amount = entry.amount if whole else cost_of(seconds, entry.rate_per_hour)
    common = {"vm_id": entry.vm_id, "pool_id": entry.pool_id, "submission_id": entry.submission_id,
              "phase": entry.phase, "period_start": start, "period_end": end, "rate_per_hour": entry.rate_per_hour,
              "rate_source": entry.rate_source, "source": Source.PLATFORM_FAULT, "corrects": entry}
    return [LedgerEntry(user_id=entry.user_id, seconds=-seconds, amount=-amount, note=f"Credit: {why}.", **common),
            LedgerEntry(user_id=None, seconds=seconds, amount=amount, note=f"The platform's: {why}.", **common)]


def ledger_faults_settle(*, submission_id: uuid.UUID | str) -> int:
    """Book to the platform what faults cost the user of this ended job; returns how many entries
    it corrected. Safe to run any number of times, concurrently."""
    submission = Submission.objects.filter(pk=submission_id, status__in=TERMINAL_STATUSES,
                                           queue_class=QueueClass.USER).first()  # a rejudge is the platform's
    holding = last_holding(submission) if submission is not None else None
    if submission is None or holding is None:
        return 0
    vm_ids = set(VMJob.objects.filter(job_ref=str(submission.pk)).values_list("vm_id", flat=True))
    vm_ids |= set(LedgerEntry.objects.filter(submission=submission, source=Source.ACCRUAL).exclude(vm=None)
                  .values_list("vm_id", flat=True).distinct())
    corrected = 0
    for vm_id in sorted(vm_ids, key=str):
        with transaction.atomic():
            list(locked(VMAccrual.objects.filter(pk=vm_id)).values_list("pk", flat=True))
            # A free pool's time costs nothing and counts against no cap: nothing to give back.
            entries = (LedgerEntry.objects.filter(vm_id=vm_id, submission=submission, source=Source.ACCRUAL,
                                                  user__isnull=False, rate_per_hour__gt=0)
                       .exclude(corrections__source=Source.PLATFORM_FAULT))
            pairs = []
            for entry in entries:
                span = fault_span(entry, holding)
                if span is not None:
                    pairs += _pair(entry, span)
            if pairs:
                LedgerEntry.objects.bulk_create(pairs, ignore_conflicts=True)
                corrected += len(pairs) // 2
    if corrected:
        log.info("submission %s: %d ledger entries booked to the platform (its faults)", submission.pk, corrected)
    return corrected


def ledger_faults_settle_for(*, entries: Iterable[LedgerEntry]) -> int:
    """After an accrual: settle the ended jobs its entries charged to a user."""
    charged = {entry.submission_id for entry in entries if entry.user_id is not None and entry.submission_id}
    if not charged:
        return 0
    ended = Submission.objects.filter(pk__in=charged, status__in=TERMINAL_STATUSES,
                                      queue_class=QueueClass.USER).values_list("pk", flat=True)
    return sum(ledger_faults_settle(submission_id=pk) for pk in ended)

"""Writes of billing: accrue VM time into the ledger, record prices, book corrections, add credit.

Accrual is idempotent per VM and period. `ledger_accrue` locks the VM's accrual cursor
(VMAccrual, SELECT ... FOR UPDATE; SQLite's IMMEDIATE transactions serialize writers anyway),
books the time from the cursor up to now split by the states the VM went through, and moves the
cursor. A second run, concurrent or not, finds the cursor already moved and books nothing; the
unique constraint on (vm, phase, period_start) is the database's backstop.

The VM's state history is what billing itself observed of the VM row (state, state_changed_at,
job_ref) each time it accrued: at every state change (fleets' vm_state_changed signal) and every
minute. Each change is observed right after its commit, so every period has exactly one phase.

Whom a period is charged to (the entry's submission and user; what counts against a user's caps):
the job the VM was started for (provisioning), the job it serves (busy; draining while a job
still runs), and the job it served last (idle, and draining after it): a warm VM waits because of
that job, and with nobody else using the pool that tail is what the job cost. Time with no job
before it (a VM started ahead of demand) is the platform's own.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.db import IntegrityError, transaction

from billing.amounts import cost_of, quantize_usd, seconds_between
from billing.faults import ledger_faults_settle_for
from billing.models import CreditGrant, LedgerEntry, Phase, RateSource, Source, VMAccrual, VMStateChange
from billing.signals import credit_granted
from core import clock
from core.locks import locked
from fleets.models import ENDED_VM_STATES, Pool, VMInstance, VMState
from submissions.models import QueueClass, Submission

log = logging.getLogger(__name__)

PHASE_OF = {
    VMState.PROVISIONING: Phase.PROVISIONING,
    VMState.BUSY: Phase.BUSY,
    VMState.WARM: Phase.IDLE,
    VMState.DRAINING: Phase.DRAINING,
}


@dataclass(frozen=True)
class _Segment:
    start: datetime
    end: datetime
    state: str
    charged_ref: str  # the job the VM serves (or was started for), else the last one it served


# ---- rates -------------------------------------------------------------------------------------
def vm_rate(*, vm: VMInstance, cursor: VMAccrual | None = None) -> tuple[Decimal, str]:
    """USD per hour for this VM and where it came from: a price recorded for the VM (the dstack
    offer it runs on), else `agent_info["price_per_hour"]` set by its backend, else the pool's."""
    if cursor is not None and cursor.price_per_hour is not None:
        return cursor.price_per_hour, cursor.price_source or RateSource.DSTACK
    raw = (vm.agent_info or {}).get("price_per_hour")
    if raw not in (None, ""):
        try:
            price = Decimal(str(raw))
        except InvalidOperation:
            log.warning("VM %s: ignoring a bad price_per_hour %r", vm.pk, raw)
        else:
            if price >= 0:
                return quantize_usd(price), RateSource.DSTACK
    return vm.pool.hourly_rate, RateSource.POOL


def vm_price_record(*, vm_id: uuid.UUID | str, price_per_hour: Decimal, source: str = RateSource.DSTACK) -> None:
    """The backend learnt what this VM really costs (dstack's instance price): use it from the
    next accrual on. Time already booked keeps its rate; reconciliation settles any difference."""
    if price_per_hour < 0:
        raise ValueError("price_per_hour must not be negative")
    with transaction.atomic():
        vm = VMInstance.objects.get(pk=vm_id)
        cursor = _lock_cursor(vm)
        cursor.price_per_hour, cursor.price_source = quantize_usd(price_per_hour), source
        cursor.save(update_fields=["price_per_hour", "price_source", "updated_at"])


# ---- accrual -----------------------------------------------------------------------------------
def _lock_cursor(vm: VMInstance) -> VMAccrual:
    cursor = locked(VMAccrual.objects.filter(pk=vm.pk)).first()
    return cursor if cursor is not None else _cursor_create_locked(vm)


def _cursor_create_locked(vm: VMInstance) -> VMAccrual:
    """The VM's first cursor, locked. The caller found none under its lock; a concurrent first
    accrual may create it meanwhile, so the insert yields to one that exists (ON CONFLICT DO NOTHING)
    and the lock is taken on whichever row won."""
    VMAccrual.objects.bulk_create([VMAccrual(vm=vm, accrued_until=vm.created_at)], ignore_conflicts=True)
    return locked(VMAccrual.objects.filter(pk=vm.pk)).get()


# How many of a VM's latest recorded changes one accrual reads at once: enough for the changes since
# the last accrual (one per state change, as a rule) and the state and job before them.
RECENT_CHANGES = 6


@dataclass(frozen=True)
class _History:
    """The VM's latest recorded changes, newest first (by at, then id); `complete` when that is all
    of them."""
    recent: list[VMStateChange]
    complete: bool


def _observe(vm: VMInstance) -> _History:
    """Record the VM's current state as of its last change, if not recorded yet. Returns the latest
    changes recorded (those just written included), for _segments. Runs under the cursor lock: no
    other accrual of this VM records changes meanwhile."""
    recent = list(VMStateChange.objects.filter(vm=vm).order_by("-at", "-id")[:RECENT_CHANGES])
    complete = len(recent) < RECENT_CHANGES
    if not recent:
        # First sight: it was created provisioning; a ready VM seen later was warm or busy since
        # ready_at (the states in between were not observed, so they count as idle).
        reserved_for = vm.job_ref if vm.state == VMState.PROVISIONING else ""
        recent.insert(0, VMStateChange.objects.create(vm=vm, state=VMState.PROVISIONING, at=vm.created_at,
                                                      job_ref=reserved_for))
        if vm.ready_at and vm.created_at < vm.ready_at < vm.state_changed_at:
            recent.insert(0, VMStateChange.objects.create(vm=vm, state=VMState.WARM, at=vm.ready_at))
    last = recent[0]
    if vm.state_changed_at >= last.at and (vm.state, vm.job_ref) != (last.state, last.job_ref):
        if vm.state_changed_at > last.at:  # later than every recorded change: not recorded yet
            recent.insert(0, VMStateChange.objects.create(vm=vm, at=vm.state_changed_at, state=vm.state,
                                                          job_ref=vm.job_ref))
        else:  # at the same instant as the last one: this state may be recorded already
            change, created = VMStateChange.objects.get_or_create(vm=vm, at=vm.state_changed_at, state=vm.state,
                                                                  defaults={"job_ref": vm.job_ref})
            if created:  # (the ids grow: it sorts after every change at the same instant)
                recent.insert(0, change)
    return _History(recent=recent, complete=complete)


def _segments_from(history: _History, start: datetime, end: datetime
                   ) -> tuple[VMStateChange | None, str, list[VMStateChange]] | None:
    """What _segments reads (the change in force at `start`, the last job served by then, the changes
    between `start` and `end` in order) when the recent history holds all of it, else None."""
    between: list[VMStateChange] = []
    before = None
    older: list[VMStateChange] = []
    for i, change in enumerate(history.recent):
        if change.at >= end:
            continue
        if change.at > start:
            between.append(change)
        else:
            before, older = change, history.recent[i + 1:]
            break
    if before is None:
        return (None, "", between[::-1]) if history.complete else None
    last_job = before.job_ref
    if not last_job:
        last_job = next((c.job_ref for c in older if c.job_ref), "")
        if not last_job and not history.complete:
            return None
    return before, last_job, between[::-1]


def _segments(vm: VMInstance, start: datetime, end: datetime, history: _History | None = None) -> list[_Segment]:
    known = _segments_from(history, start, end) if history is not None else None
    if known is not None:
        before_known, last_job, between = known
        state, job_ref = (before_known.state, before_known.job_ref) if before_known else (VMState.PROVISIONING, "")
        return _segments_walk(start, end, state, job_ref, last_job, between)
    before = VMStateChange.objects.filter(vm=vm, at__lte=start).order_by("-at", "-id").first()
    state, job_ref = (before.state, before.job_ref) if before else (VMState.PROVISIONING, "")
    last_job = job_ref
    if not last_job and before is not None:  # idle at the start: whose job did the VM serve last?
        last_job = (VMStateChange.objects.filter(vm=vm, at__lte=start).exclude(job_ref="")
                    .order_by("-at", "-id").values_list("job_ref", flat=True).first() or "")
    changes = VMStateChange.objects.filter(vm=vm, at__gt=start, at__lt=end).order_by("at", "id")
    return _segments_walk(start, end, state, job_ref, last_job, changes)


def _segments_walk(start: datetime, end: datetime, state: str, job_ref: str, last_job: str,
                   changes: Iterable[VMStateChange]) -> list[_Segment]:
    segments: list[_Segment] = []
    cursor = start
    for change in changes:
        if change.at > cursor:
            segments.append(_Segment(cursor, change.at, state, job_ref or last_job))
            cursor = change.at
        state, job_ref = change.state, change.job_ref
        last_job = job_ref or last_job
    if end > cursor:
        segments.append(_Segment(cursor, end, state, job_ref or last_job))
    return segments


def _submissions_by_ref(job_refs: set[str]) -> dict[str, tuple[uuid.UUID, int | None]]:
    ids = {}
    for ref in job_refs:
        try:
            ids[ref] = uuid.UUID(ref)
        except ValueError:
            continue  # not a submission's job
    rows = Submission.objects.filter(pk__in=ids.values()).values_list("pk", "user_id", "queue_class")
    # A rejudge is staff's decision: its time is the platform's, not held against the user's caps.
    by_id = {pk: (pk, None if queue_class == QueueClass.REJUDGE else user_id) for pk, user_id, queue_class in rows}
    return {ref: by_id[pk] for ref, pk in ids.items() if pk in by_id}


def ledger_accrue(*, vm_id: uuid.UUID | str, now: datetime | None = None) -> list[LedgerEntry]:
    """Book the VM's time since it was last accrued up to `now` (or its end), one entry per phase
    period. Safe to run any number of times, concurrently: each instant is booked once."""
    return ledger_accrue_read(vm_id=vm_id, now=now).entries


@dataclass(frozen=True)
class Accrued:
    entries: list[LedgerEntry]
    pool: Pool | None  # the VM's pool as read by the accrual; None when it read no VM


def ledger_accrue_read(*, vm_id: uuid.UUID | str, now: datetime | None = None) -> Accrued:
    """ledger_accrue, and the VM's pool as it read it (for billing's receiver: one read of the row)."""
    now = now or clock.now()
    pool = None
    try:
        with transaction.atomic():
            # The cursor is locked before the VM row is read: the state read is the one as of the lock.
            cursor = locked(VMAccrual.objects.filter(pk=uuid.UUID(str(vm_id)))).first()
            if cursor is not None and cursor.closed:
                return Accrued([], None)
            vm = VMInstance.objects.select_related("pool").filter(pk=vm_id).first()
            if vm is None:
                return Accrued([], None)
            if cursor is None:  # first accrual of this VM: create the cursor, lock it, read again
                cursor = _cursor_create_locked(vm)
                vm.refresh_from_db(from_queryset=VMInstance.objects.select_related("pool"))
            pool = vm.pool
            history = _observe(vm)
            ended = vm.state in ENDED_VM_STATES
            end = min(vm.state_changed_at, now) if ended else now
            start = cursor.accrued_until
            if end <= start:
                if ended and end == vm.state_changed_at:
                    cursor.closed = True
                    cursor.save(update_fields=["closed", "updated_at"])
                return Accrued([], pool)
            entries = _book(vm, cursor, _segments(vm, start, end, history))
            cursor.accrued_until = end
            cursor.closed = ended and end == vm.state_changed_at
            cursor.save(update_fields=["accrued_until", "closed", "updated_at"])
    except IntegrityError:
        # Another worker booked this period between our read and our insert (only possible if
        # the cursor lock was bypassed): the constraint kept it single; nothing to do.
        log.warning("accrual of VM %s up to %s was already booked", vm_id, now)
        return Accrued([], pool)
    return Accrued(entries, pool)


def _book(vm: VMInstance, cursor: VMAccrual, segments: list[_Segment]) -> list[LedgerEntry]:
    rate, rate_source = vm_rate(vm=vm, cursor=cursor)
    charged = _submissions_by_ref({s.charged_ref for s in segments if s.charged_ref})
    entries = []
    for seg in segments:
        phase = PHASE_OF.get(VMState(seg.state)) if seg.state in VMState.values else None
        if phase is None:
            continue  # stopped or failed: no longer costs
        seconds = seconds_between(seg.start, seg.end)
        submission_id, user_id = charged.get(seg.charged_ref, (None, None))
        entries.append(LedgerEntry(
            vm=vm, pool_id=vm.pool_id, submission_id=submission_id, user_id=user_id, phase=phase,
            period_start=seg.start, period_end=seg.end, seconds=seconds, rate_per_hour=rate,
            rate_source=rate_source, amount=cost_of(seconds, rate), source=Source.ACCRUAL))
    return LedgerEntry.objects.bulk_create(entries)


def ledger_accrue_all(*, now: datetime | None = None) -> int:
    """The every-minute tick: accrue every VM that is live or not yet booked to its end."""
    now = now or clock.now()
    booked = 0
    pending = VMInstance.objects.exclude(billing_accrual__closed=True).values_list("pk", flat=True)
    for vm_id in list(pending):
        try:
            entries = ledger_accrue(vm_id=vm_id, now=now)
            booked += len(entries)
            ledger_faults_settle_for(entries=entries)  # e.g. the idle tail of an ended job
        except Exception:  # one broken VM row must not stop the others being billed
            log.exception("accruing VM %s", vm_id)
    return booked


# ---- corrections -------------------------------------------------------------------------------
def ledger_adjust(*, pool: Pool, amount: Decimal, note: str, period_start: datetime,
                  period_end: datetime, source: str = Source.ADJUSTMENT, vm: VMInstance | None = None,
                  user_id: int | None = None) -> LedgerEntry:
    """A correcting entry (positive charges, negative credits back); the note says why."""
    if not note.strip():
        raise ValueError("a correction needs a note saying why")
    if source == Source.ACCRUAL:
        raise ValueError("accruals are booked by ledger_accrue only")
    entry = LedgerEntry(vm=vm, pool=pool, user_id=user_id, phase="", period_start=period_start,
                        period_end=period_end, seconds=Decimal(0), rate_per_hour=Decimal(0),
                        rate_source=RateSource.NONE, amount=quantize_usd(amount), source=source, note=note.strip())
    entry.save()
    return entry


# ---- credit ------------------------------------------------------------------------------------
def credit_grant_create(*, name: str, amount: Decimal, starts_at: datetime | None = None,
                        expires_at: datetime | None = None, note: str = "") -> CreditGrant:
    """A new grant; after commit credit_granted tells the submissions app to resume paid pools."""
    if amount < 0:
        raise ValueError("a grant cannot be negative")
    grant = CreditGrant(name=name, amount=amount, starts_at=starts_at or clock.now(), expires_at=expires_at,
                        note=note)
    grant.full_clean()
    grant.save()
    transaction.on_commit(lambda: credit_granted.send(sender=CreditGrant, grant_id=grant.pk))
    log.info("credit grant %s: %s USD", grant.name, grant.amount)
    return grant

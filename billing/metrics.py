"""Platform metrics for staff (GET /api/v1/metrics and the dashboard's headline figures)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import Avg, Count, DurationField, ExpressionWrapper, F, Min, Q, Sum
from django.utils import timezone

from billing.amounts import ZERO, quantize_usd
from billing.models import LedgerEntry, Phase, Source
from billing.selectors import BudgetStatus, budget_status
from fleets.models import LIVE_VM_STATES, VMInstance
from submissions.models import VERDICT_STATUSES, Submission
from submissions.vm_starts import VM_START_COUNTS, VMStarts

BURN_WINDOW = timedelta(days=7)

# What the platform's own faults cost it (billing.faults): the charges of the platform-fault pairs.
PLATFORM_FAULT_Q = Q(source=Source.PLATFORM_FAULT, user__isnull=True)


def _seconds(value: timedelta | None) -> float | None:
    return None if value is None else round(value.total_seconds(), 3)


def burn_rate(*, now: datetime) -> Decimal:
    """USD per day over the last 7 days (or since the first booking, if that is more recent)."""
    since = now - BURN_WINDOW
    row = LedgerEntry.objects.filter(period_start__gte=since, period_start__lt=now).aggregate(
        total=Sum("amount"), first=Min("period_start"))
    if not row["total"] or row["total"] <= 0:
        return ZERO
    first = LedgerEntry.objects.aggregate(first=Min("period_start"))["first"] or row["first"]
    span = max(now - max(first, since), timedelta(hours=1))
    return quantize_usd(row["total"] * Decimal(86400) / Decimal(span.total_seconds()))


def projected_exhaustion(*, status: BudgetStatus, burn: Decimal, now: datetime) -> date | None:
    if burn <= 0 or not status.has_grant:
        return None
    if status.remaining <= 0:
        return now.date()
    days = status.remaining / burn
    if days > 36500:
        return None
    return (now + timedelta(days=float(days))).date()


def metrics_get(*, now: datetime | None = None, status: BudgetStatus | None = None) -> dict[str, Any]:
    now = now or timezone.now()
    status = status or budget_status(now=now)
    ledger = LedgerEntry.objects.aggregate(total=Sum("amount"), idle=Sum("amount", filter=Q(phase=Phase.IDLE)),
                                           fault=Sum("amount", filter=PLATFORM_FAULT_Q))
    counts = Submission.objects.aggregate(
        **VM_START_COUNTS,
        completed=Count("pk", filter=Q(status__in=VERDICT_STATUSES)),
        queue_wait=Avg(ExpressionWrapper(F("dispatched_at") - F("queued_at"), output_field=DurationField()),
                       filter=Q(dispatched_at__isnull=False, queued_at__isnull=False)),
    )
    cold_start = VMInstance.objects.filter(ready_at__isnull=False).aggregate(
        avg=Avg(ExpressionWrapper(F("ready_at") - F("created_at"), output_field=DurationField())))["avg"]
    starts = VMStarts.of(counts)
    burn = burn_rate(now=now)
    exhaustion = projected_exhaustion(status=status, burn=burn, now=now)
    return {
        "total_cost_usd": quantize_usd(ledger["total"] or ZERO),
        "remaining_credits_usd": quantize_usd(status.remaining),
        "credits_used_pct": status.used_pct,
        "credit_usd": quantize_usd(status.credit),
        "spent_against_credit_usd": quantize_usd(status.spent),
        "paid_pools_stopped": status.exhausted,
        "tasks_completed": counts["completed"],
        "cold_starts": starts.cold,
        "warm_reuses": starts.warm,
        "active_vms": VMInstance.objects.filter(state__in=LIVE_VM_STATES).count(),
        "idle_cost_usd": quantize_usd(ledger["idle"] or ZERO),
        "platform_fault_cost_usd": quantize_usd(ledger["fault"] or ZERO),
        "avg_queue_wait_s": _seconds(counts["queue_wait"]),
        "avg_cold_start_s": _seconds(cold_start),
        "burn_rate_usd_per_day": burn,
        "projected_exhaustion_date": exhaustion,
        "generated_at": now,
    }

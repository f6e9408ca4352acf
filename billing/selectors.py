"""Reads of billing: the budget (credit, spend, balance), paid pools, a submission's cost, a user's
usage. Dashboard and metrics reads live in billing.dashboard and billing.metrics."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Min, Q, QuerySet, Sum

from billing.amounts import ZERO
from billing.models import CreditGrant, LedgerEntry, Phase, UserSpendLimit
from core import clock
from fleets.models import Backend, Pool
from submissions.models import Submission
from submissions.selectors import user_quota


def _sum(qs: QuerySet[LedgerEntry]) -> Decimal:
    total = qs.aggregate(total=Sum("amount"))["total"] or ZERO
    return total.quantize(ZERO)  # SQLite sums decimals with extra digits


def pool_is_paid(pool: Pool) -> bool:
    """A pool that costs money: a configured rate, or a dstack backend (priced by its offers)."""
    return pool.hourly_rate > 0 or pool.backend == Backend.DSTACK


def paid_pool_q(prefix: str = "") -> Q:
    """pool_is_paid as a filter, on Pool (prefix "") or through a relation (prefix "pool__")."""
    return Q(**{f"{prefix}hourly_rate__gt": 0}) | Q(**{f"{prefix}backend": Backend.DSTACK})


def grants_active(*, now: datetime | None = None) -> QuerySet[CreditGrant]:
    now = now or clock.now()
    return CreditGrant.objects.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now), starts_at__lte=now)


@dataclass(frozen=True)
class BudgetStatus:
    credit: Decimal  # the active grants together
    spent: Decimal  # everything booked since the earliest active grant started
    since: datetime | None
    grant_ids: list = field(default_factory=list)

    @property
    def remaining(self) -> Decimal:
        return self.credit - self.spent

    @property
    def used_pct(self) -> Decimal | None:
        if self.credit <= 0:
            return None
        return (self.spent * 100 / self.credit).quantize(Decimal("0.01"))

    @property
    def has_grant(self) -> bool:
        return bool(self.grant_ids)

    @property
    def exhausted(self) -> bool:
        """The hard stop: paid pools take no new work."""
        if not self.has_grant:
            return bool(settings.HIPJUDGE_BILLING_REQUIRE_GRANT)
        return self.spent >= self.credit

    @property
    def stop_reason(self) -> str:
        if not self.exhausted:
            return ""
        if not self.has_grant:
            return "There is no active credit grant, so paid pools are stopped until staff add one."
        return (f"The GPU credit is used up ({self.spent:.2f} of {self.credit:.2f} USD); paid pools are "
                "stopped until staff add a credit grant.")


def budget_status(*, now: datetime | None = None) -> BudgetStatus:
    """Credit, spend and balance right now (two queries)."""
    now = now or clock.now()
    grants = list(grants_active(now=now).values_list("pk", "amount", "starts_at"))
    if not grants:
        return BudgetStatus(credit=ZERO, spent=ZERO, since=None)
    since = min(starts for _, _, starts in grants)
    spent = _sum(LedgerEntry.objects.filter(period_start__gte=since))
    return BudgetStatus(credit=sum((amount for _, amount, _ in grants), ZERO), spent=spent, since=since,
                        grant_ids=[pk for pk, _, _ in grants])


def paid_pools_stop_reason(*, now: datetime | None = None) -> str:
    """Why paid pools take no work right now, or "" when they do."""
    return budget_status(now=now).stop_reason


# ---- users -------------------------------------------------------------------------------------
def month_start(now: datetime) -> datetime:
    return now.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def user_monthly_cap(*, user: AbstractBaseUser) -> Decimal | None:
    row = UserSpendLimit.objects.filter(user_id=user.pk).first()
    # An explicit row, even with an empty cap, overrides the default.
    return row.monthly_cap if row is not None else settings.HIPJUDGE_USER_MONTHLY_CAP


def user_month_spend(*, user: AbstractBaseUser, now: datetime | None = None) -> Decimal:
    now = now or clock.now()
    return _sum(LedgerEntry.objects.filter(user_id=user.pk, period_start__gte=month_start(now)))


def user_usage(*, user: AbstractBaseUser, now: datetime | None = None) -> dict:
    """What a user sees of their own usage: this month's cost, cap, and the submission quotas."""
    now = now or clock.now()
    spent = user_month_spend(user=user, now=now)
    cap = user_monthly_cap(user=user)
    quota = user_quota(user_id=user.pk, now=now)
    by_pool = (LedgerEntry.objects.filter(user_id=user.pk, period_start__gte=month_start(now))
               .values("pool__name").annotate(cost=Sum("amount"), secs=Sum("seconds", filter=Q(phase=Phase.BUSY)))
               .order_by("pool__name"))
    return {
        "month": month_start(now).strftime("%Y-%m"),
        "spent_usd": spent,
        "monthly_cap_usd": cap,
        "remaining_usd": None if cap is None else max(cap - spent, ZERO),
        "busy_seconds": sum((row["secs"] or Decimal(0) for row in by_pool), Decimal(0)),
        "by_pool": [{"pool": row["pool__name"], "cost_usd": row["cost"], "busy_seconds": row["secs"] or Decimal(0)}
                    for row in by_pool],
        "submissions_24h": quota["daily_used"],
        "daily_limit": quota["daily_limit"],
        "active": quota["concurrent_used"],
        "concurrent_limit": quota["concurrent_limit"],
    }


# ---- submissions -------------------------------------------------------------------------------
# What a submission cost its owner is what its caps count (billing.services' module docstring): the
# cold start of a VM started for it, its busy time, and the idle tail after it, booked so far.
def submission_cost_parts(*, submission: Submission) -> dict[str, Decimal]:
    """What this submission's job cost its owner so far, by phase (every attempt; rejudges are the
    platform's), in one query; only the phases it has."""
    rows = (LedgerEntry.objects.filter(submission_id=submission.pk, user__isnull=False).values("phase")
            .annotate(cost=Sum("amount")).order_by())
    order = [p.value for p in Phase]
    return {row["phase"]: (row["cost"] or ZERO).quantize(ZERO)
            for row in sorted(rows, key=lambda r: order.index(r["phase"]) if r["phase"] in order else len(order))}


def submission_cost(*, submission: Submission) -> Decimal:
    """What this submission's job cost its owner so far: what their caps count for it."""
    return _sum(LedgerEntry.objects.filter(submission_id=submission.pk, user__isnull=False))


def submission_costs(*, submission_ids: list) -> dict:
    """submission_cost of many, in one query (ids without a charge are left out)."""
    rows = (LedgerEntry.objects.filter(submission_id__in=submission_ids, user__isnull=False)
            .values("submission_id").annotate(cost=Sum("amount")).order_by())
    return {row["submission_id"]: (row["cost"] or ZERO).quantize(ZERO) for row in rows}


def ledger_window(*, start: datetime, end: datetime) -> QuerySet[LedgerEntry]:
    return LedgerEntry.objects.filter(period_start__lt=end, period_end__gt=start)


def ledger_first_start() -> datetime | None:
    return LedgerEntry.objects.aggregate(first=Min("period_start"))["first"]


def vm_costs(*, vm_ids: list) -> dict:
    """Cost so far of each VM (booked up to the last accrual, at most a minute old), one query."""
    rows = LedgerEntry.objects.filter(vm_id__in=vm_ids).values("vm_id").annotate(cost=Sum("amount"))
    return {row["vm_id"]: (row["cost"] or ZERO).quantize(ZERO) for row in rows}

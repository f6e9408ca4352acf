"""Reads of limits: a user's standing (suspension, own allowance), the pools they may use, how much
of their caps is used or held, and the month's top spenders.

What counts against the caps is the VM time billing charges to the user's jobs on paid pools
(busy, the cold start of a VM started for a job, the idle tail after it: billing/services.py),
plus what their queued and running submissions hold until their time is booked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, DecimalField, Exists, F, OuterRef, Sum, Value
from django.db.models.functions import Greatest

from billing.amounts import ZERO, quantize_usd
from billing.models import LedgerEntry
from billing.selectors import (
    month_start,
    paid_pool_q,
    paid_pools_stop_reason,
    pool_is_paid,
    user_month_spend,
    user_monthly_cap,
)
from core import clock
from core.prepared_query import PreparedQuery
from fleets.models import Pool
from limits.models import PoolGroupAccess, Suspension
from submissions.models import ACTIVE_STATUSES, QueueClass, Submission

# Seconds of VM time times the pool's GPUs per VM (a CPU-only paid pool counts as one).
GPU_SECONDS = Sum(F("seconds") * Greatest("pool__gpu_count", Value(1)),
                  output_field=DecimalField(max_digits=18, decimal_places=6))


# ---- standing and access -----------------------------------------------------------------------
@dataclass(frozen=True)
class Standing:
    suspended_reason: str | None = None
    suspended_at: datetime | None = None
    has_allowance: bool = False  # a spend allowance of their own: a UserSpendLimit not set to 0
    is_superuser: bool = False

    @property
    def suspended(self) -> bool:
        return self.suspended_at is not None


# Asked at every submission (the admission gate): compiled once per process.
_standing: PreparedQuery[dict[str, Any]] = PreparedQuery(
    lambda user_id: get_user_model().objects.filter(pk=user_id).values(
        "is_superuser", "suspension__reason", "suspension__created_at", "spend_limit__user_id",
        "spend_limit__monthly_cap").order_by("pk")[:1], user_id=int)


def user_standing(*, user: AbstractBaseUser | AnonymousUser) -> Standing:
    """The user's suspension and own allowance, in one query."""
    if not user.is_authenticated:
        return Standing()
    rows = _standing.fetch(user_id=user.pk)
    if not rows:
        return Standing()
    row = rows[0]
    cap = row["spend_limit__monthly_cap"]
    return Standing(suspended_reason=row["suspension__reason"], suspended_at=row["suspension__created_at"],
                    has_allowance=row["spend_limit__user_id"] is not None and (cap is None or cap > 0),
                    is_superuser=bool(row["is_superuser"]))


def suspended_sentence(standing: Standing) -> str:
    assert standing.suspended_at is not None
    reason = (standing.suspended_reason or "").strip().rstrip(".") or "no reason given"
    return (f"Your account is suspended since {standing.suspended_at:%Y-%m-%d} ({reason}), so no pool takes your "
            "submissions; ask the staff to lift the suspension.")


def closed_pool_sentence(pool: Pool, group: str | None) -> str:
    who = (f"open to members of the group {group!r} and to users with a spend allowance of their own: ask the "
           "staff to add you to that group or to give you an allowance" if group else
           "open only to users with a spend allowance of their own: ask the staff to give you one")
    return f"Pool {pool.name!r} is a paid pool, {who}. Free pools take your submissions meanwhile."


@dataclass(frozen=True)
class PoolAccess:
    open: bool
    note: str = ""  # when closed: why, and how to get access


def pools_access(*, user: AbstractBaseUser | AnonymousUser, pools: list[Pool],
                 standing: Standing | None = None) -> dict[Any, PoolAccess]:
    """Which of `pools` the user may submit to, by pool id: free pools are open; paid ones to
    superusers, users with an allowance and members of the pool's group; none to a suspended user.
    At most one query besides the standing's."""
    standing = standing or user_standing(user=user)
    if standing.suspended:
        return dict.fromkeys((f.pk for f in pools), PoolAccess(False, suspended_sentence(standing)))
    closed = [f for f in pools if pool_is_paid(f) and not (standing.is_superuser or standing.has_allowance)]
    groups: dict[Any, tuple[str, bool]] = {}
    if closed:
        membership = get_user_model().groups.through.objects.filter(user_id=user.pk or 0, group_id=OuterRef("group_id"))
        rows = (PoolGroupAccess.objects.filter(pool__in=closed).annotate(member=Exists(membership))
                .values_list("pool_id", "group__name", "member"))
        groups = {pool_id: (name, member) for pool_id, name, member in rows}
    access = dict.fromkeys((f.pk for f in pools), PoolAccess(True))
    for pool in closed:
        group, member = groups.get(pool.pk, (None, False))
        if not member:
            access[pool.pk] = PoolAccess(False, closed_pool_sentence(pool, group))
    return access


def pools_offered(*, user: AbstractBaseUser | AnonymousUser, pools: list[Pool],
                  standing: Standing | None = None) -> dict[Any, PoolAccess]:
    """pools_access as a pool picker shows it: at the hard stop no paid pool takes work, whoever
    asks, so none is offered (the refusal itself stays the credit's 402). Two more queries when
    any of `pools` is paid."""
    access = pools_access(user=user, pools=pools, standing=standing)
    stop = paid_pools_stop_reason() if any(pool_is_paid(f) and access[f.pk].open for f in pools) else ""
    if stop:
        access.update({f.pk: PoolAccess(False, stop) for f in pools if pool_is_paid(f) and access[f.pk].open})
    return access


# ---- caps --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CapUse:
    cap: Decimal | None  # None: no cap
    used: Decimal  # booked since the period started
    held: Decimal  # held by the user's queued or running submissions on paid pools
    holders: int
    resets_at: datetime

    def refuses(self, need: Decimal) -> bool:
        """A new submission holding `need` would not fit under the cap."""
        return self.cap is not None and (self.used >= self.cap or self.used + self.held + need > self.cap)

    @property
    def used_pct(self) -> float | None:
        """Used and held, in percent of the cap (at most 100); None without a cap."""
        return None if not self.cap else min(100.0, float((self.used + self.held) / self.cap * 100))


@dataclass(frozen=True)
class Caps:
    monthly_usd: CapUse
    daily_gpu_seconds: CapUse


def submission_hold(*, hourly_rate: Decimal, gpu_count: int) -> tuple[Decimal, Decimal]:
    """What one queued or running submission to a paid pool holds against the caps: (USD, GPU-seconds)."""
    seconds = Decimal(settings.HIPJUDGE_CAP_RESERVE_SECONDS)
    return quantize_usd(hourly_rate * seconds / 3600), seconds * max(gpu_count, 1)


def day_start(now: datetime) -> datetime:
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def user_caps(*, user: AbstractBaseUser, now: datetime | None = None) -> Caps:
    """Both caps with what is used and held (four queries)."""
    now = now or clock.now()
    today, month = day_start(now), month_start(now)
    gpu_seconds = (LedgerEntry.objects.filter(paid_pool_q("pool__"), user_id=user.pk, period_start__gte=today)
                   .aggregate(total=GPU_SECONDS)["total"] or ZERO)
    active = (Submission.objects.filter(paid_pool_q("pool__"), user_id=user.pk, status__in=ACTIVE_STATUSES,
                                        queue_class=QueueClass.USER)  # a rejudge is charged to nobody's caps
              .values_list("pool__hourly_rate", "pool__gpu_count"))
    holds = [submission_hold(hourly_rate=rate, gpu_count=gpus) for rate, gpus in active]
    daily_cap = settings.HIPJUDGE_USER_DAILY_GPU_SECONDS
    return Caps(
        monthly_usd=CapUse(cap=user_monthly_cap(user=user), used=user_month_spend(user=user, now=now),
                           held=sum((usd for usd, _ in holds), ZERO), holders=len(holds),
                           resets_at=(month + timedelta(days=32)).replace(day=1)),
        daily_gpu_seconds=CapUse(cap=None if daily_cap is None else Decimal(daily_cap), used=gpu_seconds,
                                 held=sum((s for _, s in holds), Decimal(0)), holders=len(holds),
                                 resets_at=today + timedelta(days=1)))


@dataclass(frozen=True)
class UserLimits:
    caps: Caps
    suspended: str  # why the account is suspended (a sentence), "" when it is not


def user_limits(*, user: AbstractBaseUser, now: datetime | None = None) -> UserLimits:
    """What a user sees of their own limits (five queries)."""
    standing = user_standing(user=user)
    return UserLimits(caps=user_caps(user=user, now=now),
                      suspended=suspended_sentence(standing) if standing.suspended else "")


# ---- staff -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Spender:
    user_id: int
    username: str
    spend: Decimal
    gpu_seconds: Decimal
    submissions: int  # this month, to paid pools
    suspended_reason: str | None


def top_spenders(*, now: datetime | None = None, limit: int = 50) -> list[Spender]:
    """This month's users by what their jobs cost on paid pools, most first (three queries)."""
    month = month_start(now or clock.now())
    rows = list(LedgerEntry.objects.filter(paid_pool_q("pool__"), period_start__gte=month, user__isnull=False)
                .values("user_id", "user__username").annotate(spend=Sum("amount"), gpu_seconds=GPU_SECONDS)
                .order_by("-spend", "user__username")[:limit])
    ids = [row["user_id"] for row in rows]
    counts = dict(Submission.objects.filter(paid_pool_q("pool__"), user_id__in=ids, created_at__gte=month)
                  .values("user_id").annotate(n=Count("pk")).values_list("user_id", "n"))
    suspended = dict(Suspension.objects.filter(user_id__in=ids).values_list("user_id", "reason"))
    return [Spender(user_id=row["user_id"], username=row["user__username"], spend=quantize_usd(row["spend"] or ZERO),
                    gpu_seconds=row["gpu_seconds"] or ZERO, submissions=counts.get(row["user_id"], 0),
                    suspended_reason=suspended.get(row["user_id"]))
            for row in rows]

